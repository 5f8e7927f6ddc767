/** A set of clips that cannot become one database; the message names the file and the reason. */
export class DatabaseBuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseBuildError';
  }
}
