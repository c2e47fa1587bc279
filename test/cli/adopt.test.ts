/**
 * A wallet the chain shows used, unknown to the ledger (a new install on a wallet used before, or a ledger whose
 * record of the wallet was deleted), signs nothing until a person adopts it: `once` pauses it by name and trades
 * nothing; `routekeeper adopt` shows the chain's count and writes the start only when given that count back; then
 * the pause lifted, it trades. A one-shot order filled before and then moved by a database writer stops `once` too.
 */
import { type Address, erc20Abi, maxUint256, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.ts';
import { runCli } from '../helpers/cli.ts';
import { daemonHome, dcaYaml, homeEnv, takeProfitYaml } from '../helpers/daemon-process.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { walletState } from '../helpers/engine.ts';
import { runSql } from '../helpers/ledgers.ts';

const fork = useDevnetFork({ routing: true });

describe('adopt', () => {
  it('a used wallet pauses until adopted at the count the chain shows; then it trades', async () => {
    const account = fork.addressBook.accounts[1] as { address: Address; privateKey: `0x${string}` };
    // Used before routekeeper knew it: an approval sent by hand.
    await fork.confirm(
      await fork
        .wallet(account.privateKey)
        .writeContract({ address: fork.token('cUSD'), abi: erc20Abi, functionName: 'approve', args: [fork.addressBook.contracts.router, maxUint256] }),
    );
    const home = daemonHome(fork, 'adopt');
    const config = home.config(dcaYaml([{ id: 'dca', sell: 'cUSD', buy: 'CELO', amount: '2', every: '1h' }]));
    const env = homeEnv(home, account.privateKey);
    const before = await walletState(fork, account.address);

    const refused = await runCli(['once', 'dca', '--config', config, '--address-book', home.book], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `the ledger holds no record of where the transactions of ${account.address} start, and the chain counts ${before.nonce} of them: .*routekeeper adopt`,
      ),
    );
    expect(await walletState(fork, account.address)).toEqual(before);

    const adopt = (...extra: string[]) => runCli(['adopt', '--config', config, '--address-book', home.book, '--ledger', home.ledgerFile, ...extra], env);
    const shown = await adopt();
    expect(shown.code, shown.stderr).toBe(1);
    expect(shown.stdout).toContain(
      `wallet main (${account.address}) on chain ${fork.addressBook.chainId}: the chain counts ${before.nonce} transactions from it`,
    );
    expect(shown.stdout).toContain(`Run again with --nonce ${before.nonce} to adopt it`);
    const wrong = await adopt('--nonce', String(before.nonce + 1));
    expect([wrong.code, wrong.stdout.trim().split('\n').at(-1)]).toEqual([
      1,
      `--nonce ${before.nonce + 1} is not the chain's count (${before.nonce}): nothing written; look again`,
    ]);
    const ledger = await Ledger.openReadOnly(home.ledgerFile);
    expect(await ledger.attempts.signedFrom(account.address, fork.addressBook.chainId)).toBeUndefined();
    await ledger.close();
    const adopted = await adopt('--nonce', String(before.nonce));
    expect(adopted.code, adopted.stderr).toBe(0);
    expect(adopted.stdout.trim().split('\n').at(-1)).toBe(
      `adopted: this ledger's record of ${account.address} starts at nonce ${before.nonce}; lift its pause with 'routekeeper resume main'`,
    );

    for (const target of [
      ['--wallet', account.address],
      ['--strategy', 'dca'],
    ])
      expect((await runCli(['resume', ...target, '--ledger', home.ledgerFile], env)).code).toBe(0);
    const traded = await runCli(['once', 'dca', '--config', config, '--address-book', home.book], env);
    expect(traded.code, traded.stderr).toBe(0);
    const after = await walletState(fork, account.address);
    expect([after.nonce, after.usd]).toEqual([before.nonce + 1, before.usd - parseUnits('2', 18)]);
  });

  it('a filled one-shot order whose row a writer moved to another strategy: once sells nothing again, and names the row', async () => {
    const account = fork.addressBook.accounts[2] as { address: Address; privateKey: `0x${string}` };
    const home = daemonHome(fork, 'adopt-moved');
    const config = home.config(takeProfitYaml('1m'));
    const env = homeEnv(home, account.privateKey);
    const filled = await runCli(['once', 'take', '--config', config, '--address-book', home.book], env);
    expect(filled.code, filled.stderr).toBe(0);
    await runSql({ kind: 'sqlite', file: home.ledgerFile }, "UPDATE intents SET strategy_id = 'x' WHERE strategy_id = 'take'");
    const before = await walletState(fork, account.address);
    const again = await runCli(['once', 'take', '--config', config, '--address-book', home.book], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/take: .*anomaly: trade take:[^ ]+, a row of wallet 0x[0-9a-fA-F]{40}, carries no tag of the wallet/);
    expect(await walletState(fork, account.address)).toEqual(before);
  });
});
