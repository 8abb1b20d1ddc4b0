import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, test } from 'node:test';
import { formatMessage, parseSmtpUrl, sendMail } from './smtp.ts';
import { startExim } from '../../../test/exim.ts';

// A real MTA (test/exim.ts): exim4 on loopback, delivering into a maildir we read back.
const exim = await startExim();
const port = exim.port;
after(() => exim.stop());

describe('SMTP client', () => {
  test('a message reaches a real MTA with its envelope, headers, and lines starting with a dot kept', async () => {
    const answer = await sendMail({ host: '127.0.0.1', port }, {
      from: 'reminders@clinic.example',
      to: 'pat@example.com',
      subject: 'Rendez-vous demain à 10:00',
      text: 'Line one\n.starts with a dot\n..two dots\nlast',
    });
    assert.match(answer, /^250 OK id=\S+$/);
    const mail = await exim.mailTo('pat@example.com');
    assert.equal(mail.from, 'reminders@clinic.example');
    assert.match(mail.data, /^From: <reminders@clinic\.example>$/m);
    assert.match(mail.data, /^To: <pat@example\.com>$/m);
    const subject = /^Subject: =\?UTF-8\?B\?([A-Za-z0-9+/=]+)\?=$/m.exec(mail.data)?.[1];
    assert.ok(subject, mail.data);
    assert.equal(Buffer.from(subject, 'base64').toString('utf8'), 'Rendez-vous demain à 10:00');
    assert.match(mail.data, /^Content-Type: text\/plain; charset=utf-8$/m);
    // exim takes the dots we stuffed off again: the body arrives as written.
    assert.ok(mail.data.endsWith('\n\nLine one\n.starts with a dot\n..two dots\nlast\n'), JSON.stringify(mail.data));
  });

  test('CR and LF cannot add headers; a refused recipient rejects with the server\'s answer, and the client says QUIT', async () => {
    const text = formatMessage({ from: 'a@b.example', to: 'c@d.example', subject: 'Hi\r\nBcc: evil@example.com', text: 'x' });
    assert.doesNotMatch(text, /^Bcc:/m);
    await assert.rejects(sendMail({ host: '127.0.0.1', port }, { from: 'a@b.example', to: 'nobody@refused.example', subject: 's', text: 'x' }), /RCPT TO refused: 550 no such user here/);
    assert.match(exim.log(), /rejected RCPT <nobody@refused\.example>: no such user here/);
    // How exim saw that connection end, once it noticed: its first such line after the refusal.
    const howItEnded = () => {
      const after = exim.log().split('rejected RCPT <nobody@refused.example>')[1] ?? '';
      return /closed by QUIT|unexpected disconnection|SMTP connection from .* lost/.exec(after)?.[0];
    };
    const end = Date.now() + 5000;
    while (!howItEnded() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(howItEnded(), 'closed by QUIT', exim.log());
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
