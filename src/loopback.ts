import { isIPv4 } from 'node:net';

/**
 * Whether a host name or address stays on this machine: `localhost`, an IPv4 address of 127.0.0.0/8, or `::1` (with
 * or without brackets). A name that only starts like one (`127.0.0.1.attacker.example`) is a name like any other.
 */
export const isLoopbackHost = (host: string) => host === 'localhost' || (isIPv4(host) && host.startsWith('127.')) || host === '::1' || host === '[::1]';
