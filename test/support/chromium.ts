// Debian's chromium for the tests in a real browser (playwright-core drives it): where it is, whether it is there,
// how to install it, and the flags every test launches it with (no sandbox as root in CI, nothing that reaches the
// network on its own).

import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
export const INSTALL_CHROMIUM = 'apt-get install -y chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
