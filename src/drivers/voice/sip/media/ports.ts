/**
 * RTP ports from the configured range: even ports only (RFC 3550 §11 leaves the odd one above
 * for RTCP), handed out round-robin so a port just released is not reused at once (late
 * packets of the old call would land in the new one), and skipped when another process holds it.
 */
import dgram from 'node:dgram';

export class PortAllocator {
  private readonly inUse = new Set<number>();
  private next: number;
  private readonly first: number;
  private readonly last: number;

  constructor(range: [number, number]) {
    const [lo, hi] = range;
    this.first = lo % 2 === 0 ? lo : lo + 1;
    this.last = hi;
    if (!(this.first >= 1024 && this.first <= this.last && this.last <= 65535)) {
      throw new Error(`invalid RTP port range ${lo}-${hi}: need two or more ports within 1024-65535`);
    }
    this.next = this.first;
  }

  get capacity(): number {
    return Math.floor((this.last - this.first) / 2) + 1;
  }

  /** Binds a UDP socket on the next free even port; rejects when the whole range is taken. */
  async bind(address: string): Promise<{ socket: dgram.Socket; port: number }> {
    for (let tries = 0; tries < this.capacity; tries++) {
      const port = this.take();
      if (port === undefined) break;
      try {
        const socket = await bindSocket(address, port);
        return { socket, port };
      } catch (err) {
        this.release(port);
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      }
    }
    throw new Error(`no free RTP port in ${this.first}-${this.last}`);
  }

  release(port: number): void {
    this.inUse.delete(port);
  }

  private take(): number | undefined {
    for (let i = 0; i < this.capacity; i++) {
      const port = this.next;
      this.next = port + 2 > this.last ? this.first : port + 2;
      if (!this.inUse.has(port)) {
        this.inUse.add(port);
        return port;
      }
    }
    return undefined;
  }
}

function bindSocket(address: string, port: number): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket({ type: 'udp4', reuseAddr: false });
    const fail = (err: Error) => {
      socket.close();
      reject(err);
    };
    socket.once('error', fail);
    socket.bind({ port, address, exclusive: true }, () => {
      socket.off('error', fail);
      resolve(socket);
    });
  });
}
