// A calculation that cannot be done with inputs that passed validation (bad
// physics, not a crash). The worker fails the scenario at once with this
// code and message instead of retrying it.
export class EngineError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'EngineError';
    this.code = code;
  }
}
