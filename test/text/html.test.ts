import { describe, expect, it } from 'vitest';
import { htmlToPlainText, plainTextToHtml } from '../../src/text/html.js';

describe('htmlToPlainText', () => {
  it('decodes entities', () => {
    expect(
      htmlToPlainText('<p>Fish &amp; chips &lt;b&gt; &quot;q&quot; &#39;s&#39; &eacute; &#x263A;</p>'),
    ).toBe('Fish & chips <b> "q" \'s\' é ☺');
    expect(htmlToPlainText('<p>a&nbsp;b</p>')).toBe('a b');
  });

  it('renders lists as "- item" lines', () => {
    expect(htmlToPlainText('<p>Steps:</p><ul><li>one</li><li>two <b>bold</b></li></ul>')).toBe(
      'Steps:\n\n- one\n- two bold',
    );
    expect(htmlToPlainText('<ol><li>first</li><li>second</li></ol>')).toMatch(/1\. first\n\s*2\. second/);
  });

  it('keeps link targets as "text (url)", once when the text is the url, not for in-page anchors', () => {
    expect(htmlToPlainText('See <a href="https://ex.com/a">the docs</a>.')).toBe(
      'See the docs (https://ex.com/a).',
    );
    expect(htmlToPlainText('<a href="https://ex.com">https://ex.com</a>')).toBe('https://ex.com');
    expect(htmlToPlainText('<a href="#top">top</a>')).toBe('top');
  });

  it('drops images, scripts, styles and the head', () => {
    const html =
      '<html><head><title>Page</title><style>p { color: red }</style></head><body>' +
      '<script>alert("x")</script><p>Hello<img src="a.png" alt="pic"> world</p></body></html>';
    expect(htmlToPlainText(html)).toBe('Hello world');
  });

  it('does not wrap long lines, keeps headings as written, collapses blank lines and trims', () => {
    const long = 'word '.repeat(60).trim();
    expect(htmlToPlainText(`<p>${long}</p>`)).toBe(long);
    expect(htmlToPlainText('<h2>Next steps</h2><p>x</p>')).toBe('Next steps\n\nx');
    expect(htmlToPlainText('\n<p>a</p><br><br><br><br><p>b</p>\n')).toBe('a\n\nb');
  });

  it('lays out table cells apart', () => {
    const text = htmlToPlainText(
      '<table><tr><th>Plan</th><th>Seats</th></tr><tr><td>Pro</td><td>5</td></tr></table>',
    );
    expect(text).toMatch(/^Plan\s+Seats\nPro\s+5$/);
  });

  it('returns an empty string for empty or whitespace input', () => {
    expect(htmlToPlainText('')).toBe('');
    expect(htmlToPlainText('  \n ')).toBe('');
    expect(htmlToPlainText('<p> </p>')).toBe('');
  });
});

describe('plainTextToHtml', () => {
  it('escapes the five HTML-special characters', () => {
    expect(plainTextToHtml(`a & b < c > d " e ' f`)).toBe('<p>a &amp; b &lt; c &gt; d &quot; e &#39; f</p>');
    expect(plainTextToHtml('<script>alert(1)</script>')).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
  });

  it('makes paragraphs of blank-line-separated blocks and <br> of single newlines', () => {
    expect(plainTextToHtml('Hi,\nthanks.\n\nBye\r\n \r\nSam')).toBe(
      '<p>Hi,<br>thanks.</p><p>Bye</p><p>Sam</p>',
    );
  });

  it('returns an empty string for empty or blank text', () => {
    expect(plainTextToHtml('')).toBe('');
    expect(plainTextToHtml(' \n\n \t')).toBe('');
  });

  it('round-trips plain text through htmlToPlainText', () => {
    const samples = [
      'if a < b && c > d then "quote" it\'s fine',
      'Line one\nLine two\n\nNew paragraph & <tag>',
      'Indented:\n  two spaces\n one space',
      'a  b   c',
      'x\n\ny\n\nz',
      'Ünïcödé ☺ 日本語',
      '&amp; is already an entity',
    ];
    for (const text of samples) {
      expect(htmlToPlainText(plainTextToHtml(text))).toBe(text);
    }
  });
});
