export async function tuneCommand(_argv: string[]): Promise<number> {
  throw new Error('not yet');
}
