import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, test } from 'node:test';
import { formatMessage, parseSmtpUrl, sendMail } from './smtp.ts';
import { SmtpSink } from './smtp-sink.fixtures.ts';

const sink = new SmtpSink();
const port = await sink.start();
after(() => sink.stop());

describe('SMTP client', () => {
  test('a message reaches the server with its envelope, headers, and lines starting with a dot kept', async () => {
    const answer = await sendMail({ host: '127.0.0.1', port }, {
      from: 'reminders@clinic.example',
      to: 'pat@example.com',
      subject: 'Rendez-vous demain à 10:00',
      text: 'Line one\n.starts with a dot\n..two dots\nlast',
    });
    assert.equal(answer, '250 OK queued');
    const mail = sink.received.at(-1);
    assert.ok(mail);
    assert.equal(mail.from, 'reminders@clinic.example');
    assert.deepEqual(mail.to, ['pat@example.com']);
    assert.match(mail.data, /^Subject: =\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=\r$/m);
    const subject = /^Subject: =\?UTF-8\?B\?(.+)\?=\r$/m.exec(mail.data)?.[1] as string;
    assert.equal(Buffer.from(subject, 'base64').toString('utf8'), 'Rendez-vous demain à 10:00');
    assert.ok(mail.data.endsWith('\r\n\r\nLine one\r\n.starts with a dot\r\n..two dots\r\nlast\r\n'), JSON.stringify(mail.data));
  });

  test('CR and LF cannot add headers; a refused recipient rejects with the server\'s answer', async () => {
    const text = formatMessage({ from: 'a@b.example', to: 'c@d.example', subject: 'Hi\r\nBcc: evil@example.com', text: 'x' });
    assert.doesNotMatch(text, /^Bcc:/m);
    sink.refuse = /^nobody@/;
    await assert.rejects(sendMail({ host: '127.0.0.1', port }, { from: 'a@b.example', to: 'nobody@d.example', subject: 's', text: 'x' }), /RCPT TO refused: 550 no such user/);
    sink.refuse = undefined;
  });

  test('a server that never greets times out; a closed port rejects', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as net.AddressInfo).port;
    await assert.rejects(sendMail({ host: '127.0.0.1', port: silentPort, timeoutMs: 200 }, { from: 'a@b.example', to: 'c@d.example', subject: 's', text: 'x' }), /did not answer in time/);
    silent.close();
    await assert.rejects(sendMail({ host: '127.0.0.1', port: silentPort }, { from: 'a@b.example', to: 'c@d.example', subject: 's', text: 'x' }));
  });

  test('SMTP_URL is smtp://host[:port], port 25 by default', () => {
    assert.deepEqual(parseSmtpUrl('smtp://relay.example:2525'), { host: 'relay.example', port: 2525 });
    assert.deepEqual(parseSmtpUrl('smtp://127.0.0.1'), { host: '127.0.0.1', port: 25 });
    assert.equal(parseSmtpUrl('http://relay.example'), undefined);
  });
});
