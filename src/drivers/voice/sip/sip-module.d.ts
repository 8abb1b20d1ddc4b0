/**
 * The few parts of the untyped `sip` package (kirm's RFC 3261 stack) that the sip driver uses:
 * its transport and transaction layers, message parsing and printing, and its digest helper.
 */
declare module 'sip' {
  export interface SipUri {
    schema: string;
    user?: string;
    host: string;
    port?: number;
    params: Record<string, string | null>;
    headers: Record<string, string>;
  }
  export interface NameAddr {
    name?: string;
    uri: string;
    params: Record<string, string | null | undefined>;
  }
  export interface Via {
    version?: string;
    protocol?: string;
    host?: string;
    port?: number;
    params: Record<string, string | null | undefined>;
  }
  export interface SipMessage {
    method?: string;
    uri?: string;
    status?: number;
    reason?: string;
    version?: string;
    headers: {
      via?: Via[];
      to?: NameAddr;
      from?: NameAddr;
      'call-id'?: string;
      cseq?: { seq: number; method: string };
      contact?: NameAddr[];
      route?: NameAddr[];
      'record-route'?: NameAddr[];
      'content-type'?: string;
      [name: string]: unknown;
    };
    content?: string;
  }
  /** Where a message came from or goes: `{protocol: 'UDP', address, port}`. */
  export interface Remote {
    protocol: string;
    address: string;
    port: number;
    local?: { address: string; port: number };
  }
  export interface Connection {
    send(message: SipMessage): void;
    release(): void;
    protocol: string;
  }
  export interface Transport {
    open(target: Remote, onError?: (err: Error) => void): Connection;
    get(target: Remote, onError?: (err: Error) => void): Connection | undefined;
    destroy(): void;
  }
  export interface ClientTransaction {
    message(m: SipMessage, remote?: Remote): void;
    shutdown(): void;
  }
  export interface ServerTransaction {
    message?(m: SipMessage, remote?: Remote): void;
    send?(m: SipMessage): void;
    shutdown(): void;
  }
  export interface TransactionLayer {
    createServerTransaction(rq: SipMessage, connection: Connection): ServerTransaction;
    createClientTransaction(connection: Connection, rq: SipMessage, onResponse: (rs: SipMessage) => void): ClientTransaction;
    getServer(m: SipMessage): ServerTransaction | undefined;
    getClient(m: SipMessage): ClientTransaction | undefined;
    destroy(): void;
  }
  export interface TransportOptions {
    address?: string;
    port?: number;
    publicAddress?: string;
    udp?: boolean;
    tcp?: boolean;
  }
  export function makeTransport(options: TransportOptions, onMessage: (m: SipMessage, remote: Remote) => void): Transport;
  export function makeTransactionLayer(options: { 'max-forwards'?: number }, open: Transport['open']): TransactionLayer;
  export function makeResponse(rq: SipMessage, status: number, reason?: string, extension?: { headers?: Record<string, unknown>; content?: string }): SipMessage;
  export function parseUri(uri: string): SipUri | undefined;
  export function stringifyUri(uri: SipUri | string): string;
  export function stringify(m: SipMessage): string;
  export function generateBranch(): string;
  const sip: {
    makeTransport: typeof makeTransport;
    makeTransactionLayer: typeof makeTransactionLayer;
    makeResponse: typeof makeResponse;
    parseUri: typeof parseUri;
    stringifyUri: typeof stringifyUri;
    stringify: typeof stringify;
    generateBranch: typeof generateBranch;
  };
  export default sip;
}

declare module 'sip/digest.js' {
  import type { SipMessage } from 'sip';
  /** Per-dialog digest state (nonce, nc …), passed back on each signed request. */
  export type DigestContext = Record<string, unknown>;
  export function signRequest(ctx: DigestContext | null, rq: SipMessage, rs: SipMessage | null, creds: { user: string; password: string; realm?: string }): DigestContext | null;
  const digest: { signRequest: typeof signRequest };
  export default digest;
}
