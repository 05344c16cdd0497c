// A calculation that cannot be done with inputs that passed validation (bad
// physics, not a crash: a crash is an EngineThreadFailure in the worker). The worker fails the scenario at once with this
// code and message instead of retrying it.
export class CalculationInputError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'CalculationInputError';
    this.code = code;
  }
}
