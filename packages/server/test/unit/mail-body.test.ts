import { test } from 'node:test';
import assert from 'node:assert/strict';
import { composeMail } from '../../src/core/mail-body.js';
import { resetMail } from '../../src/users/user-mails.js';

test('a mail has a text part and a styled HTML part with the same words; everything from a caller is escaped', () => {
  const mail = resetMail('eve@example.com', 'Eve <script>', 'https://app.example/reset?x="1"&y=2', 'TOKEN-1');
  assert.equal(mail.subject, 'Reset your password');
  assert.match(mail.text, /^Hello Eve <script>,\n\n/);
  assert.match(mail.text, /Choose a new password: https:\/\/app\.example\/reset\?x="1"&y=2&token=TOKEN-1\n$/);
  // Styles inline (mail clients drop <style> and classes), the subject as the heading, the link
  // as a button and written out.
  assert.match(mail.html, /^<!doctype html><html><head><meta charset="utf-8">/);
  assert.match(mail.html, /<h1 style="[^"]+">Reset your password<\/h1>/);
  assert.match(
    mail.html,
    new RegExp(
      '<a href="https://app\\.example/reset\\?x=&quot;1&quot;&amp;y=2&amp;token=TOKEN-1" ' +
        'style="display:inline-block;[^"]*background:#2457c5[^"]*">Choose a new password</a>',
    ),
  );
  assert.match(
    mail.html,
    /Or open this address: <a [^>]+>https:\/\/app\.example\/reset\?x=&quot;1&quot;&amp;y=2&amp;token=TOKEN-1<\/a>/,
  );
  assert.match(mail.html, /Hello Eve &lt;script&gt;,/);
  assert.doesNotMatch(mail.html, /<script|<style|class=/);
});

test('a message keeps its line breaks in the HTML part; a mail without a link has no button', () => {
  const mail = composeMail('message', 'ops@example.com', 'Message from bob', [
    'bob <bob@example.com> writes:',
    'line one\nline two',
  ]);
  assert.match(mail.html, /<p style="[^"]*white-space:pre-wrap[^"]*">line one\nline two<\/p>/);
  assert.doesNotMatch(mail.html, /<a /);
  assert.equal(mail.text, 'bob <bob@example.com> writes:\n\nline one\nline two\n');
});
