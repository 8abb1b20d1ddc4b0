/**
 * The SMPP driver against a real SMPP server (the `smpp` package's createServer) on loopback:
 * bind, submit_sm (short and long, GSM and UCS-2), receipts and inbound deliver_sm, throttling,
 * a dropped connection and the reconnect, a peer that stops answering enquire_link.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import smpp, { type Pdu, type Session } from 'smpp';
import { systemClock } from '../../clock.ts';
import type { DeliveryReport, InboundMessage, SmsEvents } from './driver.ts';
import { SmppDriver } from './smpp.ts';

/** What the test SMSC saw and how it should answer. */
const smsc = {
  binds: [] as Pdu[],
  submits: [] as Pdu[],
  /** Submits answered ESME_ROK: [text, message_id]. */
  accepted: [] as { to: string; text: string; id: string }[],
  enquireLinks: 0,
  deliverResps: 0,
  /** command_status of the next submit_sm_resp answers (then 0). */
  nextStatuses: [] as number[],
  sessions: [] as Session[],
  /** The system_id each session bound with. */
  boundAs: new Map<Session, string>(),
  /** Sessions that no longer answer enquire_link (a hung peer). */
  mute: new Set<Session>(),
  closes: 0,
};

const server = smpp.createServer((session) => {
  smsc.sessions.push(session);
  session.socket.on('close', () => smsc.closes++);
  session.on('bind_transceiver', (pdu: Pdu) => {
    smsc.binds.push(pdu);
    smsc.boundAs.set(session, String(pdu.system_id));
    session.send(pdu.response(pdu.password === 'secret' ? {} : { command_status: 0x0e }));
  });
  session.on('submit_sm', (pdu: Pdu) => {
    smsc.submits.push(pdu);
    const status = smsc.nextStatuses.shift() ?? 0;
    if (status) return session.send(pdu.response({ command_status: status }));
    const id = `m${smsc.submits.length}`;
    smsc.accepted.push({ to: String(pdu.destination_addr), text: (pdu.short_message as { message: string }).message, id });
    session.send(pdu.response({ message_id: id }));
  });
  session.on('enquire_link', (pdu: Pdu) => {
    smsc.enquireLinks++;
    if (!smsc.mute.has(session)) session.send(pdu.response());
  });
  session.on('deliver_sm_resp', () => smsc.deliverResps++);
  session.on('unbind', (pdu: Pdu) => {
    session.send(pdu.response());
    session.close();
  });
  session.on('error', () => {});
});

const reports: [number, DeliveryReport][] = [];
const inbound: [number, InboundMessage][] = [];
const events: SmsEvents = {
  report: async (gatewayId, report) => void reports.push([gatewayId, report]),
  inbound: async (gatewayId, message) => void inbound.push([gatewayId, message]),
};

let port = 0;
let driver: SmppDriver;

async function waitFor(what: string, condition: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function makeDriver(password = 'secret', settings: Record<string, unknown> = {}): SmppDriver {
  return new SmppDriver(
    {
      id: 7,
      name: 'smsc',
      driver: 'smpp',
      callback_secret: 'x',
      settings: {
        host: '127.0.0.1', port, system_id: 'dialer', password, system_type: 'cd',
        source_addr_ton: 5, source_addr_npi: 0, dest_addr_ton: 1, dest_addr_npi: 1,
        enquire_link_s: 1, reconnect_ms: 100, throttle_pause_ms: 300, response_timeout_ms: 2000,
        ...settings,
      },
    },
    { clock: systemClock, events },
  );
}

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
  driver = makeDriver();
});

after(async () => {
  await driver.close();
  for (const session of smsc.sessions) session.destroy();
  await new Promise((resolve) => server.close(resolve));
});

/** The server's view of the live session (the last one bound). */
const liveSession = () => smsc.sessions[smsc.sessions.length - 1];

describe('SMPP driver against a real SMPP server', () => {
  test('binds as a transceiver and sends a short GSM message in one submit_sm', async () => {
    const result = await driver.send({ messageId: 1, to: '+15550001111', from: 'Dialer', text: 'Hello {world} €5' });
    assert.deepEqual(result, { ok: true, gatewayMessageId: 'm1' });
    assert.equal(smsc.binds.length, 1);
    const bind = smsc.binds[0];
    assert.deepEqual([bind.command, bind.system_id, bind.system_type, bind.interface_version], ['bind_transceiver', 'dialer', 'cd', 0x34]);
    const submit = smsc.submits[0];
    assert.deepEqual(
      [submit.destination_addr, submit.source_addr, submit.source_addr_ton, submit.source_addr_npi, submit.dest_addr_ton, submit.data_coding, submit.esm_class, submit.registered_delivery],
      ['15550001111', 'Dialer', 5, 0, 1, 0, 0, 1],
    );
    assert.equal((submit.short_message as { message: string }).message, 'Hello {world} €5');
  });

  test('a long GSM text goes as parts with a concatenation UDH; its id is the first part’s', async () => {
    const text = `${'a'.repeat(153)}${'b'.repeat(47)}`;
    const first = smsc.submits.length;
    const result = await driver.send({ messageId: 2, to: '15550002222', from: '12345', text });
    const parts = smsc.submits.slice(first);
    assert.equal(parts.length, 2);
    assert.deepEqual(result, { ok: true, gatewayMessageId: `m${first + 1}` });
    const ref = (parts[0].short_message as { udh: Buffer[] }).udh[0][2];
    parts.forEach((part, i) => {
      const sm = part.short_message as { udh: Buffer[]; message: string };
      assert.equal(part.esm_class, 0x40);
      assert.equal(part.data_coding, 0);
      assert.deepEqual([...sm.udh[0]], [0x00, 0x03, ref, 2, i + 1]);
    });
    assert.deepEqual(parts.map((p) => (p.short_message as { message: string }).message), ['a'.repeat(153), 'b'.repeat(47)]);
  });

  test('a long UCS-2 text goes with data_coding 8 in parts of 67 characters', async () => {
    const text = 'Привет! '.repeat(12); // 96 characters, not GSM-7
    const first = smsc.submits.length;
    const result = await driver.send({ messageId: 3, to: '15550003333', from: '12345', text });
    assert.equal(result.ok, true);
    const parts = smsc.submits.slice(first);
    assert.deepEqual(parts.map((p) => p.data_coding), [8, 8]);
    assert.deepEqual(parts.map((p) => p.esm_class), [0x40, 0x40]);
    const texts = parts.map((p) => (p.short_message as { message: string }).message);
    assert.deepEqual(texts.map((t) => t.length), [67, 29]);
    assert.equal(texts.join(''), text);
    const refs = parts.map((p) => (p.short_message as { udh: Buffer[] }).udh[0][2]);
    assert.equal(refs[0], refs[1]);
    assert.notEqual(refs[0], (smsc.submits[first - 1].short_message as { udh: Buffer[] }).udh[0][2], 'a new reference per message');
  });

  test('delivery receipts become reports (a receipt for a later part maps to the message); deliver_sm is answered', async () => {
    const long = await driver.send({ messageId: 4, to: '15550004444', from: '1', text: 'x'.repeat(200) });
    assert.equal(long.ok, true);
    const firstId = (long as { gatewayMessageId: string }).gatewayMessageId;
    const secondId = smsc.accepted[smsc.accepted.length - 1].id;
    assert.notEqual(secondId, firstId);
    const resps = smsc.deliverResps;
    const session = liveSession();
    session.send(new smpp.PDU('deliver_sm', { source_addr: '15550004444', destination_addr: '1', esm_class: 0x04, short_message: `id:${secondId} sub:001 dlvrd:001 submit date:2601050900 done date:2601050901 stat:DELIVRD err:000 text:xxxx` }));
    session.send(new smpp.PDU('deliver_sm', { source_addr: '15550001111', destination_addr: 'Dialer', esm_class: 0x04, short_message: 'id:m1 sub:001 dlvrd:000 submit date:2601050900 done date:2601050901 stat:UNDELIV err:034 text:Hello' }));
    await waitFor('two reports', () => reports.length >= 2);
    assert.deepEqual(
      reports.map(([gw, r]) => [gw, r.gatewayMessageId, r.status, r.error]),
      [[7, firstId, 'delivered', undefined], [7, 'm1', 'failed', 'UNDELIV err:034']],
    );
    assert.ok(reports.every(([, r]) => r.at instanceof Date));
    await waitFor('deliver_sm_resp', () => smsc.deliverResps === resps + 2);
  });

  test('a deliver_sm that is not a receipt is an inbound message', async () => {
    liveSession().send(new smpp.PDU('deliver_sm', { source_addr: '15550009999', destination_addr: '12345', esm_class: 0, short_message: 'STOP' }));
    await waitFor('inbound', () => inbound.length === 1);
    const [gatewayId, message] = inbound[0];
    assert.deepEqual([gatewayId, message.from, message.to, message.text], [7, '15550009999', '12345', 'STOP']);
    assert.equal(reports.length, 2, 'no report from an inbound message');
  });

  test('enquire_link keeps the session alive', async () => {
    const before = smsc.enquireLinks;
    await waitFor('an enquire_link', () => smsc.enquireLinks > before, 3000);
  });

  test('a throttled reply (0x58) is a retry and pauses sending briefly; then sends succeed', async () => {
    smsc.nextStatuses.push(0x58);
    const submits = smsc.submits.length;
    const throttled = await driver.send({ messageId: 10, to: '15550001010', from: '1', text: 'throttled' });
    assert.deepEqual(throttled, { ok: false, error: 'smpp: throttled by the SMSC (0x58)', retry: true });
    const paused = await driver.send({ messageId: 10, to: '15550001010', from: '1', text: 'throttled' });
    assert.equal(paused.ok, false);
    assert.equal((paused as { retry: boolean }).retry, true);
    assert.equal(smsc.submits.length, submits + 1, 'nothing sent while paused');
    await new Promise((resolve) => setTimeout(resolve, 350));
    const later = await driver.send({ messageId: 10, to: '15550001010', from: '1', text: 'throttled' });
    assert.equal(later.ok, true, JSON.stringify(later));
    assert.equal(smsc.accepted.filter((a) => a.text === 'throttled').length, 1);
  });

  test('a dropped connection: sends while down are retries, the driver re-binds, later sends succeed, nothing twice', async () => {
    const binds = smsc.binds.length;
    const closes = smsc.closes;
    const submits = smsc.submits.length;
    liveSession().destroy();
    await waitFor('the close', () => smsc.closes > closes);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const down = await driver.send({ messageId: 20, to: '15550002020', from: '1', text: 'after the drop' });
    assert.equal(down.ok, false);
    assert.match((down as { error: string }).error, /^smpp: not bound/);
    assert.equal((down as { retry: boolean }).retry, true);
    assert.equal(smsc.submits.length, submits);
    await waitFor('the re-bind', () => smsc.binds.length > binds);
    const up = await driver.send({ messageId: 20, to: '15550002020', from: '1', text: 'after the drop' });
    assert.equal(up.ok, true, JSON.stringify(up));
    const texts = smsc.accepted.map((a) => `${a.to}:${a.text}`);
    assert.equal(new Set(texts).size, texts.length, `nothing sent twice: ${texts.join(' | ')}`);
    assert.equal(smsc.accepted.filter((a) => a.text === 'after the drop').length, 1);
  });

  test('a refused bind (wrong password) answers retry with the reason and keeps trying', async () => {
    const wrong = makeDriver('wrong');
    try {
      const binds = smsc.binds.length;
      const result = await wrong.send({ messageId: 30, to: '1', from: '1', text: 'x' });
      assert.equal(result.ok, false);
      assert.match((result as { error: string }).error, /bind refused \(command_status 0xe\)/);
      assert.equal((result as { retry: boolean }).retry, true);
      await waitFor('a second bind attempt', () => smsc.binds.length >= binds + 2);
    } finally {
      await wrong.close();
    }
  });

  test('a peer that stops answering enquire_link is dropped and re-bound; sends then succeed, nothing twice', async () => {
    const quick = makeDriver('secret', { system_id: 'hung', response_timeout_ms: 300 });
    const sessionsOf = () => smsc.sessions.filter((s) => smsc.boundAs.get(s) === 'hung');
    try {
      assert.equal((await quick.send({ messageId: 40, to: '15550004040', from: '1', text: 'before the hang' })).ok, true);
      const [hung] = sessionsOf();
      smsc.mute.add(hung);
      const started = Date.now();
      // enquire_link every 1 s, 300 ms for its answer: the driver gives up on the session in about 1.3 s.
      await waitFor('the driver to drop the hung session', () => hung.socket.destroyed, 4000);
      assert.ok(Date.now() - started < 2500, `dropped after ${Date.now() - started} ms`);
      await waitFor('the re-bind', () => sessionsOf().length === 2 && !sessionsOf()[1].socket.destroyed, 4000);
      const after = await quick.send({ messageId: 41, to: '15550004141', from: '1', text: 'after the hang' });
      assert.equal(after.ok, true, JSON.stringify(after));
      assert.deepEqual(smsc.accepted.filter((a) => a.text.endsWith('the hang')).map((a) => a.text), ['before the hang', 'after the hang']);
    } finally {
      await quick.close();
    }
  });
});
