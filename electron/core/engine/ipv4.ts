/** IPv4 addresses as unsigned 32-bit numbers and back (subnets of a range, a range's members). */
export function ipv4ToInt(address: string): number {
  return address.split('.').reduce((n, part) => ((n << 8) | Number(part)) >>> 0, 0);
}

export function intToIpv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');
}

/** Whether the IPv4 address is inside the CIDR. */
export function inRange(address: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/') as [string, string];
  const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0;
  return (ipv4ToInt(address) & mask) >>> 0 === (ipv4ToInt(base) & mask) >>> 0;
}
