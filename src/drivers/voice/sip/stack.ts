/**
 * Our SIP endpoint on top of the `sip` package's transport and transaction layers (RFC 3261
 * §17: retransmissions on UDP, timers B/F, ACK of non-2xx finals, absorbing retransmitted
 * requests). We do not use the package's `create()` front end: its sequential search turns a
 * 503 into a made-up response (losing Retry-After) and resolves the Request-URI itself, while
 * we choose the proxy (failover) and must read every final response as sent.
 */
import dgram from 'node:dgram';
import dns from 'node:dns/promises';
import net from 'node:net';
import os from 'node:os';
import sip, { type ClientTransaction, type Connection, type Remote, type SipMessage, type TransactionLayer, type Transport } from 'sip';

export type Reply = (status: number, reason: string, extension?: { headers?: Record<string, unknown>; content?: string }) => void;
/** Requests and stray responses (a 2xx retransmitted after its transaction ended) of one Call-ID. */
export type DialogHandler = (m: SipMessage, reply?: Reply) => void;

export interface StackOptions {
  transport: 'udp' | 'tcp';
  bindAddress: string;
  /** 0 = any free port. */
  bindPort: number;
  /** Our address as the far end sees it ('' = bindAddress, or this host's first IPv4 address). */
  advertised: string;
  onError?: (err: Error) => void;
}

/** A port nobody listens on now (the library binds its own socket and cannot be given ours). */
async function freePort(kind: 'udp' | 'tcp', address: string, wanted: number): Promise<number> {
  if (kind === 'udp') {
    const socket = dgram.createSocket(net.isIPv6(address) ? 'udp6' : 'udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(wanted, address, () => resolve());
    });
    const { port } = socket.address();
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    return port;
  }
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(wanted, address, () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function hostAddress(bind: string): string {
  if (bind !== '0.0.0.0' && bind !== '::') return bind;
  const external = Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal);
  return external?.address ?? '127.0.0.1';
}

export class SipStack {
  readonly protocol: 'UDP' | 'TCP';
  private readonly dialogs = new Map<string, DialogHandler>();
  private readonly transport: Transport;
  private readonly transactions: TransactionLayer;
  private closed = false;

  private constructor(
    private readonly opts: StackOptions,
    readonly port: number,
    readonly address: string,
  ) {
    this.protocol = opts.transport === 'tcp' ? 'TCP' : 'UDP';
    this.transport = sip.makeTransport(
      { address: opts.bindAddress, port, publicAddress: address, udp: opts.transport === 'udp', tcp: opts.transport === 'tcp' },
      (m, remote) => this.receive(m, remote),
    );
    this.transactions = sip.makeTransactionLayer({}, this.transport.open.bind(this.transport));
  }

  /** Binds the socket (probing the port first: the library's socket has no error handler). */
  static async open(opts: StackOptions): Promise<SipStack> {
    const port = await freePort(opts.transport, opts.bindAddress, opts.bindPort);
    return new SipStack(opts, port, opts.advertised || hostAddress(opts.bindAddress));
  }

  /** Where a host:port is reached (a name is looked up once per request). */
  async remote(host: string, port: number): Promise<Remote> {
    const address = net.isIP(host) ? host : (await dns.lookup(host)).address;
    return { protocol: this.protocol, address, port };
  }

  /** Our Contact URI. */
  contactUri(user = 'dialer'): string {
    const host = net.isIPv6(this.address) ? `[${this.address}]` : this.address;
    return `sip:${user}@${host}:${this.port}${this.protocol === 'TCP' ? ';transport=tcp' : ''}`;
  }

  /**
   * Sends a request in a client transaction to `target`. Responses (and a 408 when no final
   * came in time) go to `onResponse`; a transport failure (TCP refused) to `onError`.
   */
  request(target: Remote, rq: SipMessage, onResponse: (rs: SipMessage) => void, onError: (err: Error) => void): ClientTransaction {
    rq.version = '2.0';
    rq.headers['max-forwards'] ??= 70;
    // A CANCEL carries its INVITE's Via (same branch); anything else gets a fresh one.
    if (rq.method !== 'CANCEL') rq.headers.via = [{ params: {} }];
    return this.transactions.createClientTransaction(this.guarded(this.transport.open(target, onError)), rq, onResponse);
  }

  /** Sends outside any transaction: the ACK of a 2xx (RFC 3261 §13.2.2.4), with its own branch. */
  sendDirect(target: Remote, m: SipMessage): void {
    m.version = '2.0';
    m.headers.via = [{ params: { branch: sip.generateBranch() } }];
    m.headers['max-forwards'] ??= 70;
    const connection = this.transport.open(target, (err) => this.opts.onError?.(err));
    try {
      connection.send(m);
    } finally {
      connection.release();
    }
  }

  /** A connection that sends nothing once we are closed (a transaction's timer may still fire). */
  private guarded(connection: Connection): Connection {
    return {
      protocol: connection.protocol,
      send: (m) => {
        if (!this.closed) connection.send(m);
      },
      release: () => connection.release(),
    };
  }

  onDialog(callId: string, handler: DialogHandler): void {
    this.dialogs.set(callId, handler);
  }

  offDialog(callId: string): void {
    this.dialogs.delete(callId);
  }

  private receive(m: SipMessage, remote: Remote): void {
    if (this.closed) return;
    try {
      if (m.method) this.receiveRequest(m, remote);
      else this.receiveResponse(m, remote);
    } catch (err) {
      this.opts.onError?.(err as Error);
    }
  }

  private receiveRequest(m: SipMessage, remote: Remote): void {
    const handler = this.dialogs.get(m.headers['call-id'] ?? '');
    if (m.method === 'ACK') return handler?.(m);
    const known = this.transactions.getServer(m);
    if (known) return known.message?.(m, remote); // a retransmission: the transaction answers it
    const connection = this.transport.get(remote) ?? this.transport.open(remote);
    const server = this.transactions.createServerTransaction(m, connection);
    const reply: Reply = (status, reason, extension) => server.send?.(sip.makeResponse(m, status, reason, extension));
    if (handler) handler(m, reply);
    else if (m.method === 'OPTIONS') reply(200, 'OK', { headers: { allow: 'INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, NOTIFY' } });
    else reply(481, 'Call/Transaction Does Not Exist');
  }

  private receiveResponse(m: SipMessage, remote: Remote): void {
    const client = this.transactions.getClient(m);
    if (client) return client.message(m, remote);
    // A 2xx to an INVITE retransmitted after its transaction ended: the dialog sends the ACK again.
    if (m.status && m.status >= 200 && m.status < 300) this.dialogs.get(m.headers['call-id'] ?? '')?.(m);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.transactions.destroy();
    this.transport.destroy();
  }
}
