/** A mistake in how a command was called: printed as one line, without a stack trace, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
