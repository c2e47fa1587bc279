import { RoutekeeperError } from '../errors.ts';

/** Configuration that cannot work: a bad environment variable, address book or strategy file. Names what is wrong. */
export class ConfigError extends RoutekeeperError {
  override name = 'ConfigError';
}
