/** Whether a host name or address stays on this machine: `localhost`, 127.0.0.0/8, or `::1` (with or without brackets). */
export const isLoopbackHost = (host: string) => host === 'localhost' || host.startsWith('127.') || host === '::1' || host === '[::1]';
