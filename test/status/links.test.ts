/** Explorer links on the status page are https: only, wherever the explorer's address comes from. */
import { describe, expect, it } from 'vitest';
import { addressBookSchema } from '../../src/config/address-book.ts';
import { explorerLink } from '../../src/status/report.ts';

const hash = `0x${'ab'.repeat(32)}`;

describe('explorer links', () => {
  it('link a transaction at an https: explorer, and nowhere else (the ledger that stores it is untrusted)', () => {
    expect(explorerLink('https://celoscan.io/', hash)).toBe(`https://celoscan.io/tx/${hash}`);
    for (const explorer of ['javascript:alert(document.cookie)//', 'http://celoscan.io', 'data:text/html,<script>1</script>', 'not a url']) {
      expect(explorerLink(explorer, hash), explorer).toBeNull();
    }
  });

  it('an address book names an https: explorer only', () => {
    const book = {
      chainId: 1,
      rpcUrl: 'http://127.0.0.1:8545',
      tokens: {},
      contracts: { router: `0x${'11'.repeat(20)}`, oneClickFarm: `0x${'22'.repeat(20)}`, adapters: {}, farms: {}, gauges: {} },
      pools: [],
      accounts: [],
    };
    expect(addressBookSchema.safeParse({ ...book, explorer: 'https://celoscan.io' }).success).toBe(true);
    const refused = addressBookSchema.safeParse({ ...book, explorer: 'javascript:alert(1)' });
    expect(refused.success).toBe(false);
    expect(addressBookSchema.safeParse({ ...book, explorer: 'http://celoscan.io' }).error?.issues.map((issue) => issue.message)).toEqual([
      'must be an https: URL (the status page links to it)',
    ]);
  });
});
