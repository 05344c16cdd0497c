/** A weather or wind resource file that cannot be read: the line (1-based) and, where known, the column. */
export class WeatherFileError extends Error {
  readonly line: number;
  readonly column: number | null;

  constructor(line: number, message: string, column: number | null = null) {
    super(column === null ? `line ${line}: ${message}` : `line ${line}, column ${column}: ${message}`);
    this.name = 'WeatherFileError';
    this.line = line;
    this.column = column;
  }
}
