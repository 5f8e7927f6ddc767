/**
 * Errors raised by the importers. Every error names the file and a 1-based line so that a user can
 * open the file at the problem; `reason` is the bare explanation without the location prefix.
 */

/** A malformed or unsupported BVH file. Message: "<file>:<line>: <reason>". */
export class BvhError extends Error {
  /** The file name given to the parser (or "<string>" when none was given). */
  readonly file: string;
  /** 1-based line number of the problem. */
  readonly line: number;
  /** What is wrong, without the "<file>:<line>: " prefix. */
  readonly reason: string;

  constructor(file: string, line: number, reason: string) {
    super(`${file}:${line}: ${reason}`);
    this.name = 'BvhError';
    this.file = file;
    this.line = line;
    this.reason = reason;
  }
}
