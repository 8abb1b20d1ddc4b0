/**
 * Requests this server makes to URLs its users give (webhooks; the survey's API-call sections):
 * guarded against SSRF. Loopback, private, link-local (cloud metadata at 169.254.169.254),
 * carrier-grade NAT, multicast and unspecified addresses are refused after DNS resolution, at
 * connection time (so a name that resolves to a public address when checked and to 127.0.0.1
 * when used is refused too), unless the instance allows them (WEBHOOK_ALLOW_PRIVATE=true).
 */
import dns from 'node:dns';
import net from 'node:net';
import { Agent } from 'undici';

const blocked = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(address, prefix, 'ipv4');
}
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(address, prefix, 'ipv6');
}

/** Whether `ip` is an address a user's URL may not reach (IPv4-mapped IPv6 read as IPv4). */
export function isPrivateAddress(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return blocked.check(mapped[1], 'ipv4');
  const family = net.isIP(ip);
  if (family === 0) return true; // not an address: refuse rather than guess
  return blocked.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

const refusal = (host: string, address: string) => `${host} resolves to ${address}, a private or local address`;

/** Why `raw` may not be called (scheme, syntax, or an address it resolves to), or undefined. */
export async function outboundUrlProblem(raw: string, allowPrivate: boolean): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Enter a valid URL.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'The URL must start with http:// or https://.';
  if (url.username || url.password) return 'The URL may not carry credentials.';
  if (allowPrivate) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  try {
    const addresses = net.isIP(host) ? [{ address: host }] : await dns.promises.lookup(host, { all: true });
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (!bad) return undefined;
    return `The URL is not allowed: ${net.isIP(host) ? `${host} is a private or local address` : refusal(host, bad.address)}.`;
  } catch {
    return `The URL's host ${host} does not resolve.`;
  }
}

/** A dns.lookup that fails for refused addresses: used when connecting. */
function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return (callback as (e: Error) => void)(err);
      const list = addresses as dns.LookupAddress[];
      const bad = allowPrivate ? undefined : list.find((a) => isPrivateAddress(a.address));
      if (bad) return (callback as (e: Error) => void)(Object.assign(new Error(refusal(hostname, bad.address)), { code: 'EPRIVATE' }));
      if ((options as dns.LookupAllOptions).all) return (callback as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      (callback as (e: null, a: string, f: number) => void)(null, list[0].address, list[0].family);
    });
  };
}

export interface OutboundAnswer {
  status: number;
  body: string;
}

/**
 * The connections to users' URLs: undici's, kept alive and reused (a webhook's deliveries go one
 * after another over one; undici costs about a third less CPU per request than node:http, which
 * is most of a delivery's cost), each connected through the guard.
 */
const agents = new Map<boolean, Agent>();
function agentFor(allowPrivate: boolean): Agent {
  let agent = agents.get(allowPrivate);
  if (!agent) {
    agent = new Agent({ connections: 32, keepAliveTimeout: 30_000, connect: { lookup: guardedLookup(allowPrivate) } });
    agents.set(allowPrivate, agent);
  }
  return agent;
}

/**
 * Sends one request to `url` through the guard (method GET without a body, or POST with `body`);
 * resolves with the status and the first `keep` characters of the answer, rejects on a refused
 * address, a network error or `timeoutMs` (an error named TimeoutError).
 */
export async function requestGuarded(
  method: 'GET' | 'POST',
  url: string | URL,
  body: string | Buffer | undefined,
  headers: Record<string, string>,
  { allowPrivate, timeoutMs, keep = 500 }: { allowPrivate: boolean; timeoutMs: number; keep?: number },
): Promise<OutboundAnswer> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && net.isIP(host) && isPrivateAddress(host)) {
    throw Object.assign(new Error(`${host} is a private or local address`), { code: 'EPRIVATE' });
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error(`${target.protocol} URLs are not called`);
  const sent = body === undefined ? headers : { 'content-type': 'application/json', ...headers };
  // A timer and a controller, not AbortSignal.timeout(): that one cost a DOMException and an
  // abort-signal registration per delivery, about 4 % of a webhook process's CPU (bench:events).
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const signal = controller.signal;
  try {
    const response = await agentFor(allowPrivate).request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method,
      headers: sent,
      body,
      signal,
    });
    let text = '';
    // Read to the end (the connection is then reused), keeping the first `keep` characters.
    for await (const chunk of response.body) if (text.length < keep) text += (chunk as Buffer).toString('utf8');
    return { status: response.statusCode, body: text.slice(0, keep) };
  } catch (err) {
    if (signal.aborted) throw Object.assign(new Error(`no answer within ${timeoutMs / 1000} s`), { name: 'TimeoutError' });
    // undici wraps the connector's error (the guard's refusal among them) as its cause.
    const cause = (err as { cause?: Error }).cause;
    throw cause instanceof Error && (cause as { code?: string }).code === 'EPRIVATE' ? cause : err;
  } finally {
    clearTimeout(timer);
  }
}

/** POSTs JSON `body` to `url` through the guard (webhook deliveries). */
export function postGuarded(
  url: string,
  body: string | Buffer,
  headers: Record<string, string>,
  options: { allowPrivate: boolean; timeoutMs: number; keep?: number },
): Promise<OutboundAnswer> {
  return requestGuarded('POST', url, body, headers, options);
}
