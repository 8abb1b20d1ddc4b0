/** The few parts of the untyped `smpp` package (SMPP 3.4 client and server) that we use. */
declare module 'smpp' {
  import type { EventEmitter } from 'node:events';
  import type { Server as NetServer, Socket } from 'node:net';

  export class PDU {
    constructor(command: string, fields?: Record<string, unknown>);
    command: string;
    command_status: number;
    sequence_number: number;
    /** The response PDU of this request (same sequence number). */
    response(fields?: Record<string, unknown>): PDU;
    [field: string]: unknown;
  }
  export type Pdu = PDU;

  export class Session extends EventEmitter {
    socket: Socket;
    send(pdu: Pdu, responseCallback?: (pdu: Pdu) => void): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
    [command: string]: unknown;
  }

  export interface Server extends NetServer {
    sessions: Session[];
  }

  export function connect(options: { host: string; port: number; auto_enquire_link_period?: number }, listener?: () => void): Session;
  export function createServer(listener: (session: Session) => void): Server;

  const smpp: { connect: typeof connect; createServer: typeof createServer; PDU: typeof PDU };
  export default smpp;
}
