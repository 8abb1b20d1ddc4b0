/**
 * An SMSC for the SMPP tests: the smpp package's server on a loopback port (a real peer, not a
 * fake of ours).
 */
import type { AddressInfo } from 'node:net';
import smpp, { type Pdu } from 'smpp';
import type { Api, Server } from './cli-process.ts';

/**
 * The SMSC: the smpp package's server. It answers binds at once and counts each number's
 * submit_sm; each is answered at once or, while `holding()` says so, kept in `held` until let go.
 * `close` kills the server under test if it still runs (its SMPP session ends with it), then
 * closes: the SMSC closes once no session is left.
 */
export async function startSmsc(holding: () => boolean = () => false) {
  const to = new Map<string, number>();
  const held: (() => void)[] = [];
  let submits = 0;
  const smsc = smpp.createServer((session) => {
    session.on('bind_transceiver', (pdu: Pdu) => session.send(pdu.response()));
    session.on('submit_sm', (pdu: Pdu) => {
      const number = String(pdu.destination_addr);
      to.set(number, (to.get(number) ?? 0) + 1);
      const answer = () => session.send(pdu.response({ message_id: `m${++submits}` }));
      if (holding()) held.push(answer);
      else answer();
    });
    session.on('enquire_link', (pdu: Pdu) => session.send(pdu.response()));
    session.on('unbind', (pdu: Pdu) => session.send(pdu.response()));
    session.on('error', () => {});
  });
  await new Promise<void>((resolve) => smsc.listen(0, '127.0.0.1', () => resolve()));
  return {
    to,
    held,
    submits: () => submits,
    /** Makes it an SMPP gateway of the server (admin's API), with `settings` beside its address (`throughput` …). */
    gateway: (admin: Api, settings: object = {}) =>
      admin('POST', '/rest-api/sms-gateway/', {
        name: 'smsc',
        driver: 'smpp',
        settings: { host: '127.0.0.1', port: (smsc.address() as AddressInfo).port, system_id: 'dialer', password: 'pw', ...settings },
      }),
    close: async (server: Server | undefined) => {
      if (server && server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill('SIGKILL');
        await server.exited;
      }
      await new Promise((resolve) => smsc.close(() => resolve(undefined)));
    },
  };
}
