// Host names that are local whatever a resolver answers. Pure.

/** Whether the name is localhost or below it: loopback by definition (RFC 6761). */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  return name === 'localhost' || name.endsWith('.localhost');
}
