import ipaddr from 'ipaddr.js';

/**
 * Whether an IP address is a public destination we may connect to on a merchant's behalf
 * (docs/decisions.md sections 9, 11 and 17). Refused: loopback, private,
 * link-local (incl. 169.254.169.254), CGNAT, multicast, broadcast, reserved and documentation ranges,
 * unspecified, unique-local IPv6, IPv6 outside global unicast 2000::/3, 6to4/Teredo tunnels, and
 * IPv4-mapped / IPv4-compatible / NAT64 IPv6 forms of any refused IPv4 address.
 * `address` is a literal in canonical form (as DNS answers or the URL parser give it), with or
 * without IPv6 brackets. Anything unparseable is refused.
 */
export function isPublicAddress(address: string): boolean {
  const literal = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(literal)) return false;
  const parsed = ipaddr.parse(literal);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded !== undefined) return embedded.range() === 'unicast';
  const first = v6.parts[0] ?? 0;
  return v6.range() === 'unicast' && first >= 0x2000 && first <= 0x3fff;
}

/** The IPv4 address carried inside an IPv4-mapped, IPv4-compatible or NAT64 (64:ff9b::/96) IPv6. */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = v6.parts;
  const tail = () =>
    ipaddr.IPv4.parse(`${(p[6] ?? 0) >> 8}.${(p[6] ?? 0) & 255}.${(p[7] ?? 0) >> 8}.${(p[7] ?? 0) & 255}`);
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  const zeros = (n: number) => p.slice(0, n).every((x) => x === 0);
  // ::ffff:0:a.b.c.d (RFC 6145 translated) and ::a.b.c.d (deprecated IPv4-compatible); :: and ::1 excluded.
  if (zeros(4) && p[4] === 0xffff && p[5] === 0) return tail();
  if (zeros(6) && ((p[6] ?? 0) !== 0 || (p[7] ?? 0) > 1)) return tail();
  if (p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((x) => x === 0)) return tail();
  return undefined;
}

/** Parsed `OUTBOUND_ALLOWLIST`: host names (exact, case-insensitive) and CIDR ranges or single IPs. */
export interface Allowlist {
  hosts: Set<string>;
  ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][];
}

/**
 * Parses `OUTBOUND_ALLOWLIST` ("localhost,127.0.0.1/32,::1"). Unsafe in production: it lets merchant
 * URLs reach the listed addresses. Throws on an entry that is neither a host name nor an IP/CIDR.
 */
export function parseAllowlist(text: string | undefined): Allowlist {
  const list: Allowlist = { hosts: new Set(), ranges: [] };
  for (const raw of (text ?? '').split(',')) {
    const entry = raw
      .trim()
      .toLowerCase()
      .replace(/^\[|\]$/g, '');
    if (!entry) continue;
    if (entry.includes('/')) {
      list.ranges.push(ipaddr.parseCIDR(entry));
    } else if (ipaddr.isValid(entry)) {
      const ip = ipaddr.parse(entry);
      list.ranges.push([ip, ip.kind() === 'ipv4' ? 32 : 128]);
    } else if (/^[a-z0-9.-]+$/.test(entry)) {
      list.hosts.add(entry.replace(/\.$/, ''));
    } else {
      throw new Error(`not a host name, IP or CIDR: "${raw.trim()}"`);
    }
  }
  return list;
}

/** Whether `address` falls in an allowlisted range. */
export function allowlistedAddress(list: Allowlist, address: string): boolean {
  const literal = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(literal)) return false;
  let ip = ipaddr.parse(literal);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress())
    ip = (ip as ipaddr.IPv6).toIPv4Address();
  return list.ranges.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits));
}

export function allowlistedHost(list: Allowlist, host: string): boolean {
  return list.hosts.has(host.toLowerCase().replace(/\.$/, ''));
}

/**
 * Whether a URL's host is, as written, a destination we never reach for a merchant: an IP literal
 * that is not public (loopback, private, link-local, metadata, ...; the URL parser has already
 * normalised forms such as `0x7f.1` or `[::ffff:127.0.0.1]`) or a `localhost` name (RFC 6761), and not
 * allowlisted. Names that resolve later are left to the connect-time guard.
 */
export function isForbiddenLiteralHost(url: URL, allowlist: Allowlist): boolean {
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (allowlistedHost(allowlist, host)) return false;
  const literal = host.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(literal) && /^[\d.]+$|:/.test(literal)) {
    return !allowlistedAddress(allowlist, literal) && !isPublicAddress(literal);
  }
  return host === 'localhost' || host.endsWith('.localhost');
}
