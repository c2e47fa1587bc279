/**
 * A ledger beyond this machine is reached only over TLS that verifies the server, judged by the parser the driver
 * itself uses: the host it will connect to and the TLS options it will use, not the URL's look.
 */
import { describe, expect, it } from 'vitest';
import { databaseUrlOf } from '../../src/config/env.ts';

const judged = (url: string) => {
  try {
    return databaseUrlOf(url, { ROUTEKEEPER_DATABASE_PLAINTEXT: false }) === url ? 'accepted' : 'changed';
  } catch (error) {
    return (error as Error).message;
  }
};
const refusedWithout = (host: string) =>
  `--database names ${host}, beyond this machine, without TLS: add sslmode=verify-full (with sslrootcert=<the server's CA> if it is not a public one), or set ROUTEKEEPER_DATABASE_PLAINTEXT=true on a network you trust`;
const refusedUnverified = (host: string) => refusedWithout(host).replace('without TLS', 'with TLS that does not verify the server');

describe('the TLS rule of a database URL', () => {
  it('accepts TLS that verifies the server, and a database on this machine or its socket without it', () => {
    for (const url of [
      'postgres://rk:pw@db.example.org/routekeeper?sslmode=verify-full',
      'postgres://rk:pw@db.example.org/routekeeper?ssl=true',
      'postgres://rk:pw@db.example.org/routekeeper?sslmode=require',
      'postgres://rk:pw@localhost:5432/routekeeper',
      'postgres://rk:pw@127.0.0.2/routekeeper',
      'postgres:///routekeeper?host=/var/run/postgresql',
    ]) {
      expect(judged(url), url).toBe('accepted');
    }
  });

  it('refuses a host named in ?host= beyond the machine, whatever the URL says before it', () => {
    expect(judged('postgres://rk:pw@localhost/routekeeper?host=db.example.org')).toBe(refusedWithout('db.example.org'));
  });

  it('refuses TLS that is switched off again, or does not verify the server', () => {
    expect(judged('postgres://rk:pw@db.example.org/routekeeper?ssl=true&sslmode=disable')).toBe(refusedWithout('db.example.org'));
    expect(judged('postgres://rk:pw@db.example.org/routekeeper?sslmode=no-verify')).toBe(refusedUnverified('db.example.org'));
    expect(judged('postgres://rk:pw@db.example.org/routekeeper?sslmode=require&uselibpqcompat=true')).toBe(refusedUnverified('db.example.org'));
    expect(judged('postgres://rk:pw@db.example.org/routekeeper')).toBe(refusedWithout('db.example.org'));
  });
});
