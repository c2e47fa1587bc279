/**
 * What the committed devnet artifacts (src/devnet/artifacts/contracts.ts) are made from, as one digest: the compilers'
 * versions and settings, every Solidity file of ours, and the version of every package the contracts import or take
 * a published build from (a package's files never change within a version). The module carries the digest it was
 * generated from, and the digest of its own text: a test compares both with the tree (a source edited, a package or a
 * compiler bumped without `npm run compile-contracts`, or the module edited by hand), without compiling
 * (`npm run compile-contracts -- --check` compiles and compares the whole text).
 * Nothing here loads a compiler.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
export const contractsDir = join(here, 'contracts');
/** Contracts built on Uniswap V3's own libraries, which need the compiler those were written for (0.7). */
export const uniswapV3ContractsDir = join(here, 'contracts-v3');
export const artifactsModulePath = join(here, 'artifacts', 'contracts.ts');

/** The contracts whose ABI and bytecode the devnet deploys. */
export const deployable = [
  'TestToken',
  'DevnetRouter',
  'UniswapV2Adapter',
  'OneClickFarm',
  'UniswapV2Farm',
  'GaugeFarm',
  'StakingGauge',
  'DevnetPriceFeed',
  'DevnetSequencerUptimeFeed',
  'DevnetSortedOracles',
  'DevnetMarketHoursBreaker',
  'DevnetMarketHoursBreakerToggleable',
  'DevnetOracleAdapter',
  'DevnetFPMM',
  'DevnetFPMMFactory',
  // Hostile contracts, deployed by tests only.
  'LyingToken',
  'SkimmingAdapter',
  'OverQuotingAdapter',
  // A Mento Broker of the v2.6 line's shape (no `reserve()`), deployed by tests only.
  'DevnetBrokerV26',
] as const;

/** The contracts of `contracts-v3`, compiled with solc 0.7.6. */
export const deployableOnUniswapV3 = ['UniswapV3Adapter', 'V3LiquidityProvider'] as const;

/** The real Uniswap V2 core contracts, taken from the published build unchanged. */
export const uniswapV2Core = ['UniswapV2Factory', 'UniswapV2Pair'] as const;

/** The real Uniswap V3 core contracts, taken from the published build unchanged. */
export const uniswapV3Core = ['UniswapV3Factory', 'UniswapV3Pool'] as const;

/** Uniswap V3 periphery contracts Celo has, taken from the published build (`@uniswap/v3-periphery`) unchanged. */
export const uniswapV3Periphery = [
  ['QuoterV2', 'lens'],
  ['NonfungiblePositionManager', ''],
] as const;

/** The settings of our own 0.8 contracts: no metadata hash, so the bytecode depends only on the sources. */
export const ownSettings = {
  // 0.8.37 defaults to osaka; OpenZeppelin 5 needs cancun or later and anvil runs it.
  evmVersion: 'cancun',
  optimizer: { enabled: true, runs: 200 },
  viaIR: true,
  metadata: { bytecodeHash: 'none', appendCBOR: false },
};

/** The settings of the contracts on Uniswap V3's libraries: 0.7.6 has no appendCBOR setting; its metadata hash is left out all the same. */
export const onUniswapV3Settings = { evmVersion: 'istanbul', optimizer: { enabled: true, runs: 800 }, metadata: { bytecodeHash: 'none' } };

/** The packages the artifacts are made with or from: the compilers, and what the contracts import or copy. */
const packages = ['solc', 'solc-0.7', '@openzeppelin/contracts', '@uniswap/v2-core', '@uniswap/v3-core', '@uniswap/v3-periphery'];

const versionOf = (name: string) => (JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string }).version;

const solidityFiles = (dir: string) =>
  readdirSync(dir)
    .filter((file) => file.endsWith('.sol'))
    .sort()
    .map((file) => [join(dir === contractsDir ? 'contracts' : 'contracts-v3', file), readFileSync(join(dir, file), 'utf8')]);

/** The digest of everything the artifacts are made from. */
export function artifactInputsDigest(): string {
  const inputs = {
    packages: Object.fromEntries(packages.map((name) => [name, versionOf(name)])),
    settings: { ownSettings, onUniswapV3Settings, deployable, deployableOnUniswapV3, uniswapV2Core, uniswapV3Core, uniswapV3Periphery },
    sources: [...solidityFiles(contractsDir), ...solidityFiles(uniswapV3ContractsDir)],
  };
  return createHash('sha256').update(JSON.stringify(inputs)).digest('hex');
}

/** The digest of a module's text after its header (the lines up to the first empty one). */
export function artifactBodyDigest(text: string): string {
  return createHash('sha256')
    .update(text.slice(text.indexOf('\n\n') + 2))
    .digest('hex');
}

/** The header lines that carry both digests. */
export const inputsLine = (digest: string) => `// inputs: sha256 ${digest}`;
export const bodyLine = (digest: string) => `// text: sha256 ${digest}`;
