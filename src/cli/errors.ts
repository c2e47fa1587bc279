import { RoutekeeperError } from '../errors.ts';

/** A mistake in how a command was called: printed as one line, without a stack trace, exit code 2. */
export class UsageError extends RoutekeeperError {
  override name = 'UsageError';
}
