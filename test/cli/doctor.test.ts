/**
 * `routekeeper doctor` against the devnet: everything it relies on passes; a broken feed and a factory's wrong
 * init code hash are each named on their own line, with exit 1. Against Celo (a fork of CELO_RPC_URL) when set.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, http, keccak256, toHex } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { forkChain } from '../../src/devnet/devnet.ts';
import * as swappa from '../../src/devnet/artifacts/swappa-published.ts';
import { reportWorldPrices } from '../../src/devnet/oracle.ts';
import { celoQuoterV2 } from '../../src/devnet/uniswap-v3.ts';
import { runCli } from '../helpers/cli.ts';
import { useDevnetFork } from '../helpers/devnet.ts';

const fork = useDevnetFork();

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'routekeeper-doctor-'));
});

const strategies = `
wallets:
  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }
strategies:
  - { id: dca, kind: dca, wallet: main, every: 1h, sell: { token: cUSD, amount: "5" }, buy: CELO }
  - { id: rwd, kind: dca, wallet: main, every: 1h, sell: { token: CELO, amount: "5" }, buy: RWD }
`;

function files(book: object) {
  const bookFile = join(dir, `book-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(bookFile, JSON.stringify(book));
  const config = join(dir, 'strategies.yaml');
  writeFileSync(config, strategies);
  return { bookFile, config };
}

const env = () => ({
  RPC_URL: '',
  ROUTING_SERVICE_URL: '',
  ROUTEKEEPER_CONFIG: '',
  ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[0]?.privateKey as string,
  ROUTEKEEPER_DATA_DIR: join(dir, 'data'),
});

describe('routekeeper doctor', () => {
  it('passes against the devnet: node methods, code, feeds, the factory hash, the sequencer, every strategy priced', async () => {
    const { bookFile, config } = files(fork.addressBook);
    // Nothing answers at port 9: the hosted service, gone.
    const { code, stdout, stderr } = await runCli(['doctor', '--config', config, '--address-book', bookFile, '--hosted-service', 'http://127.0.0.1:9'], env());
    expect(code, stdout + stderr).toBe(0);
    const lines = stdout.split('\n');
    expect(lines.find((line) => line.startsWith('warn hosted routing service http://127.0.0.1:9 does not answer (fetch failed'))).toBeDefined();
    expect(lines).toContain('ok   node: eth_simulateV1 answers: routes are verified by their token flows');
    expect(lines.find((line) => line.startsWith('ok   code: all '))).toMatch(/all \d+ addresses of the chain data have code/);
    expect(lines.filter((line) => /^ok {3}feed 0x\w+ \((CELO|cUSD|cEUR|USDC|WETH)\): 8 decimals, updated \d+ s ago/.test(line))).toHaveLength(5);
    expect(lines).toContain(
      `ok   factory ${fork.addressBook.contracts.uniswapV2Factory}: init code hash ${fork.addressBook.contracts.uniswapV2PairInitCodeHash} reproduces its pool ${fork.addressBook.pools[0]?.address}`,
    );
    // The devnet's per-mille V2 adapter quotes 4 of the factory's pools as their reserves and fee say, both ways.
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^ok {3}adapter ${fork.addressBook.contracts.adapters.uniswapV2} \\(Uniswap V2, fee byte in per-mille\\) for uniswap-v2: quotes 4 pools \\(0\\.3%\\) as their state says, both ways at (2[4-9]|3[0-2]) sizes`,
        ),
      ),
    );
    expect(lines.find((line) => line.startsWith('ok   sequencer: up for '))).toBeDefined();
    expect(lines.find((line) => /^ok {3}SortedOracles 0x\w+ rate feed 0x\w+ \(CELO\): answers its own median$/.test(line))).toBeDefined();
    expect(lines).toContain('ok   strategy dca: every token it trades has a price');
    expect(lines).toContain('ok   strategy rwd: every token it trades has a price');
    expect(lines.at(-2)).toBe('doctor: nothing fails');
  });

  it("measures each feed's heartbeat from its last rounds and says when its limit is looser than twice that", async () => {
    const celoFeed = fork.addressBook.priceSources?.CELO?.find((source) => source.kind === 'feed');
    const feedOnly = { ...fork.addressBook, priceSources: { CELO: [celoFeed as NonNullable<typeof celoFeed>] } };
    // The CELO feed posts every minute, 24 times: what doctor reads back (24 rounds) is that and nothing older.
    for (let round = 0; round < 24; round++) {
      await fork.testClient.increaseTime({ seconds: 60 });
      await fork.testClient.mine({ blocks: 1 });
      await reportWorldPrices(fork.addressBook.rpcUrl, feedOnly, { CELO: 0.5 });
    }
    const { bookFile, config } = files(fork.addressBook);
    const { stdout } = await runCli(['doctor', '--config', config, '--address-book', bookFile, '--hosted-service', 'http://127.0.0.1:9'], env());
    const lines = stdout.split('\n');
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^warn feed ${celoFeed?.address} \\(CELO\\): its last 24 rounds came at most 6\\d s apart \\(median 6\\d s\\); its limit of 604800 s is looser than twice that \\(12\\d s\\): a stalled feed would go on pricing trades$`,
        ),
      ),
    );
    // A feed with a single round (cUSD's, reported once when the world was made) cannot be measured, and says so.
    expect(lines).toContainEqual(
      expect.stringMatching(/^warn feed 0x\w+ \(cUSD\): fewer than 3 rounds to measure its heartbeat; its limit of 604800 s is unchecked$/),
    );
  });

  it('names a broken feed and a wrong init code hash, each on its line, and exits 1', async () => {
    const book = structuredClone(fork.addressBook);
    // CELO's "feed" is a token contract (it answers decimals(), not latestRoundData()); the hash is of nothing.
    const brokenFeed = book.tokens.cEUR?.address as `0x${string}`;
    book.priceSources = { ...book.priceSources, CELO: [{ kind: 'feed', address: brokenFeed, maxAgeSeconds: 3600, decimals: 8 }] };
    const wrongHash = keccak256(toHex('not the pair creation code'));
    book.contracts.uniswapV2PairInitCodeHash = wrongHash;
    const { bookFile, config } = files(book);
    const { code, stdout } = await runCli(['doctor', '--config', config, '--address-book', bookFile, '--hosted-service', 'http://127.0.0.1:9'], env());
    expect(code).toBe(1);
    const lines = stdout.split('\n');
    expect(lines.find((line) => line.startsWith(`FAIL feed ${brokenFeed} (CELO): does not answer as a feed`))).toBeDefined();
    expect(lines.find((line) => line.startsWith(`FAIL factory ${book.contracts.uniswapV2Factory}: init code hash ${wrongHash} gives 0x`))).toMatch(
      /not its pool 0x\w+: its pools would not be recognised$/,
    );
    expect(lines.find((line) => line.startsWith('FAIL strategy dca cannot trade: CELO has no price now'))).toBeDefined();
    expect(lines.at(-2)).toMatch(/^doctor: [3-9] findings fail$/);
  });
});

describe.skipIf(!process.env.CELO_RPC_URL)('routekeeper doctor against a fork of Celo (CELO_RPC_URL)', () => {
  it("finds code at every address of the built-in Celo data, a fresh answer from every feed, both factories' hashes right, SortedOracles read as the daemon reads it", async () => {
    const celo = await forkChain(process.env.CELO_RPC_URL as string);
    try {
      const config = join(dir, 'celo.yaml');
      writeFileSync(config, strategies.replace(/cUSD/g, 'USDm').replace(/ {2}- \{ id: rwd.*\n/, ''));
      // A named service that does not answer, so doctor does not index all of Celo's pools through the fork.
      const { stdout } = await runCli(['doctor', '--config', config], {
        ...env(),
        RPC_URL: celo.rpcUrl,
        ROUTEKEEPER_REQUIRE_RPC_URL: 'true',
        ROUTING_SERVICE_URL: 'http://127.0.0.1:9',
      });
      expect(stdout).toContain('doctor: chain 42220 (network)');
      // Swappa's published PairUniswapV2 prices real Ubeswap, SushiSwap and Uniswap V2 pools as their reserves and 0.3% fee say.
      for (const protocol of ['ubeswap', 'sushiswap', 'uniswap-v2']) {
        expect(stdout).toMatch(
          new RegExp(
            `^ok {3}adapter 0x202019eD34aBD85Af1e54Ec47E9AA558e6990b1C \\(Uniswap V2, fee byte in bips\\) for ${protocol}: quotes [1-4] pools \\(0\\.3%\\) as their state says`,
            'm',
          ),
        );
      }
      // Swappa's PairUniswapV3 quotes through QuoterV2, asked at the top level as the daemon asks it, exactly as the pools' ticks say.
      expect(stdout).toMatch(
        /^ok {3}adapter 0xcFbB9619258AAD38A68B62d11f2458c9191Dbf3c \(Uniswap V3, extras: the pool\) for uniswap-v3: quotes [1-4] pools \(.*\) as their state says, both ways at [1-9]\d* sizes/m,
      );
      expect(stdout).toMatch(
        /^ok {3}factory 0xAfE208a311B21f13EF87E33A90049fC17A7acDEc: init code hash 0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54 reproduces its pool 0x\w{40}$/m,
      );
      expect(stdout).toMatch(
        /^(ok {3}factory 0xAfE208a311B21f13EF87E33A90049fC17A7acDEc \(uniswap-v3\): no code before block 13757683|warn factory 0xAfE208a311B21f13EF87E33A90049fC17A7acDEc \(uniswap-v3\): whether it had code before block 13757683 cannot be read)/m,
      );
      expect(stdout).toContain(
        'ok   factory 0x79a530c8e2fA8748B7B40dd3629C0520c2cCf03f: init code hash 0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f reproduces',
      );
      expect(stdout).toContain('ok   code: all ');
      // Uniswap's position manager on Celo makes its pools in the V3 factory the chain data names.
      expect(stdout).toContain(
        "ok   position manager 0x3d79EdAaBC0EaB6F08ED885C05Fc0B014290D95A: its factory() is the chain data's 0xAfE208a311B21f13EF87E33A90049fC17A7acDEc",
      );
      expect(stdout).not.toMatch(/^FAIL feed/m);
      expect(stdout).toContain('ok   factory 0x62d5b84bE28a183aBB507E125B384122D2C25fAE: init code hash');
      expect(stdout).toContain(
        'ok   factory 0xc35DADB65012eC5796536bD9864eD8773aBc74C4: init code hash 0xe18a34eb0e04b04f7a0ac29a6e80748dca96319b42c54d679cb821dca90c6303 reproduces',
      );
      // Mento's SortedOracles answers each rate feed's own median, the way the daemon reads it.
      expect(stdout).not.toMatch(/^FAIL SortedOracles/m);
      expect(stdout).toMatch(
        /^ok {3}SortedOracles 0xefB84935239dAcdecF7c5bA76d8dE40b077B7b33 rate feed 0x765DE816845861e75A25fCA122bb6898B8B1282a \(CELO\): answers its own median$/m,
      );
      // Mento's Broker lists the BiPoolManager, which uses the BreakerBox the chain data names; Swappa's PairMentoV2
      // prices its exchanges as their buckets, the oracle and the clock say.
      expect(stdout).toMatch(/^ok {3}Mento Broker 0x777A8255cA72412f0d706dc03C9D1987306B4CaD: [1-9]\d* exchanges of 1 provider found$/m);
      expect(stdout).not.toMatch(/^FAIL Mento Broker/m);
      expect(stdout).toMatch(
        /^ok {3}adapter 0x90d2986AB3e2b08aFE7D7a5E0E0302B7b2464AEc \(Mento v2, extras: broker \(20\), exchange provider \(20\), exchange id \(32\)\) for mento: quotes [1-4] pools/m,
      );
    } finally {
      await celo.stop();
    }
  }, 180_000);

  it("holds at Swappa's published adapter addresses (V2, V3, Mento) the code of the build the devnet runs (npm @terminal-fi/swappa 1.26.0), and QuoterV2 where that build calls it", async () => {
    const client = createPublicClient({ transport: http(process.env.CELO_RPC_URL as string) });
    // A creation code holds the runtime code it deploys (these have no immutables).
    for (const [address, build] of [
      ['0xcFbB9619258AAD38A68B62d11f2458c9191Dbf3c', swappa.PairUniswapV3],
      ['0x202019eD34aBD85Af1e54Ec47E9AA558e6990b1C', swappa.PairUniswapV2],
      ['0x90d2986AB3e2b08aFE7D7a5E0E0302B7b2464AEc', swappa.PairMentoV2],
    ] as const) {
      const code = await client.getCode({ address });
      expect(code && code.length > 2 && build.bytecode.includes(code.slice(2)), address).toBe(true);
    }
    expect((await client.getCode({ address: celoQuoterV2 }))?.length ?? 0).toBeGreaterThan(2);
  }, 60_000);
});
