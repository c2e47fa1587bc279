/**
 * Compiles the devnet's Solidity with solc-js and renders the committed artifact module.
 * Used by `scripts/compile-contracts.ts` (writes it) and by a test (fails when the committed file is stale).
 * solc is a development dependency: nothing at run time imports this module.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';
import solcForUniswapV3 from 'solc-0.7';

const require = createRequire(import.meta.url);
const contractsDir = join(dirname(fileURLToPath(import.meta.url)), 'contracts');
/** Contracts built on Uniswap V3's own libraries, which need the compiler those were written for (0.7). */
const uniswapV3ContractsDir = join(dirname(fileURLToPath(import.meta.url)), 'contracts-v3');
export const artifactsModulePath = join(dirname(fileURLToPath(import.meta.url)), 'artifacts', 'contracts.ts');
/** The daemon's own Solidity, never deployed: its runtime code is placed by state override (src/contracts/solidity). */
const daemonContractsDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'contracts', 'solidity');
export const daemonCodeModulePath = join(dirname(fileURLToPath(import.meta.url)), '..', 'contracts', 'solidity-code.ts');

/** The contracts whose ABI and bytecode the devnet deploys. */
const deployable = [
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
const deployableOnUniswapV3 = ['UniswapV3Adapter', 'V3LiquidityProvider'] as const;

/** The real Uniswap V2 core contracts, taken from the published build unchanged. */
const uniswapV2Core = ['UniswapV2Factory', 'UniswapV2Pair'] as const;

/** The real Uniswap V3 core contracts, taken from the published build unchanged. */
const uniswapV3Core = ['UniswapV3Factory', 'UniswapV3Pool'] as const;

/** Uniswap V3 periphery contracts Celo has, taken from the published build (`@uniswap/v3-periphery`) unchanged. */
const uniswapV3Periphery = [
  ['QuoterV2', 'lens'],
  ['NonfungiblePositionManager', ''],
] as const;

type Artifact = { abi: unknown[]; bytecode: string; deployedBytecode?: string };

function resolveImport(path: string): { contents: string } | { error: string } {
  try {
    return { contents: readFileSync(require.resolve(path), 'utf8') };
  } catch {
    return { error: `cannot resolve import ${path}` };
  }
}

type SolcCompiler = { compile(input: string, callbacks: { import: typeof resolveImport }): string };

function compileSolidity(compiler: SolcCompiler, dir: string, settings: Record<string, unknown>): Record<string, Artifact> {
  const sources = Object.fromEntries(
    readdirSync(dir)
      .filter((file) => file.endsWith('.sol'))
      .sort()
      .map((file) => [file, { content: readFileSync(join(dir, file), 'utf8') }]),
  );
  const input = {
    language: 'Solidity',
    sources,
    settings: { ...settings, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } } },
  };
  const output = JSON.parse(compiler.compile(JSON.stringify(input), { import: resolveImport }));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n')}`);
  }
  const artifacts: Record<string, Artifact> = {};
  for (const file of Object.keys(output.contracts)) {
    for (const [name, contract] of Object.entries<{ abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>(
      output.contracts[file],
    )) {
      artifacts[name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}`, deployedBytecode: `0x${contract.evm.deployedBytecode.object}` };
    }
  }
  return artifacts;
}

function loadUniswapV2Core(name: string): Artifact {
  const build = JSON.parse(readFileSync(require.resolve(`@uniswap/v2-core/build/${name}.json`), 'utf8'));
  return { abi: build.abi, bytecode: `0x${build.bytecode}` };
}

function loadUniswapV3Core(name: string): Artifact {
  const build = JSON.parse(readFileSync(require.resolve(`@uniswap/v3-core/artifacts/contracts/${name}.sol/${name}.json`), 'utf8'));
  return { abi: build.abi, bytecode: build.bytecode };
}

function loadUniswapV3Periphery(name: string, folder: string): Artifact {
  const build = JSON.parse(
    readFileSync(require.resolve(`@uniswap/v3-periphery/artifacts/contracts/${folder === '' ? '' : `${folder}/`}${name}.sol/${name}.json`), 'utf8'),
  );
  return { abi: build.abi, bytecode: build.bytecode };
}

const picked = (compiled: Record<string, Artifact>, names: readonly string[]) =>
  names.map((name): [string, Artifact] => {
    const artifact = compiled[name];
    if (!artifact) throw new Error(`solc produced no contract ${name}`);
    return [name, artifact];
  });

/** The settings of our own 0.8 contracts: no metadata hash, so the bytecode depends only on the sources. */
const ownSettings = {
  // 0.8.37 defaults to osaka; OpenZeppelin 5 needs cancun or later and anvil runs it.
  evmVersion: 'cancun',
  optimizer: { enabled: true, runs: 200 },
  viaIR: true,
  metadata: { bytecodeHash: 'none', appendCBOR: false },
};

/** The full text of `src/devnet/artifacts/contracts.ts`. */
export function renderArtifactsModule(): string {
  // No metadata hash: the bytecode then depends only on the sources, so the staleness check is exact.
  const compiled = compileSolidity(solc, contractsDir, ownSettings);
  // 0.7.6 has no appendCBOR setting; its metadata hash is left out all the same.
  const compiledOnUniswapV3 = compileSolidity(solcForUniswapV3, uniswapV3ContractsDir, {
    evmVersion: 'istanbul',
    optimizer: { enabled: true, runs: 800 },
    metadata: { bytecodeHash: 'none' },
  });
  const lines = [
    '// Generated by `npm run compile-contracts` from src/devnet/contracts, src/devnet/contracts-v3, @uniswap/v2-core,',
    '// @uniswap/v3-core and @uniswap/v3-periphery. Do not edit.',
    `// solc ${solc.version()}; contracts-v3: solc ${solcForUniswapV3.version()}`,
    '',
  ];
  const entries: [string, Artifact][] = [
    ...picked(compiled, deployable),
    ...picked(compiledOnUniswapV3, deployableOnUniswapV3),
    ...uniswapV2Core.map((name): [string, Artifact] => [name, loadUniswapV2Core(name)]),
    ...uniswapV3Core.map((name): [string, Artifact] => [name, loadUniswapV3Core(name)]),
    ...uniswapV3Periphery.map(([name, folder]): [string, Artifact] => [name, loadUniswapV3Periphery(name, folder)]),
  ];
  for (const [name, { abi, bytecode }] of entries) {
    lines.push(`export const ${name} = {`, `  abi: ${JSON.stringify(abi)},`, `  bytecode: '${bytecode}',`, '} as const;', '');
  }
  return lines.join('\n');
}

/**
 * The full text of `src/contracts/solidity-code.ts`: the ABI and runtime code of the daemon's own contracts, which
 * the daemon places by state override and never deploys. Compiled for Shanghai (no PUSH0 needed beyond it, no
 * Cancun opcode), which every chain the daemon trades on runs.
 */
export function renderDaemonCodeModule(): string {
  const compiled = compileSolidity(solc, daemonContractsDir, { ...ownSettings, evmVersion: 'shanghai' });
  const lines = ['// Generated by `npm run compile-contracts` from src/contracts/solidity. Do not edit.', `// solc ${solc.version()}`, ''];
  for (const [name, { abi, deployedBytecode }] of picked(compiled, ['HopQuoter'])) {
    lines.push(`export const ${name} = {`, `  abi: ${JSON.stringify(abi)},`, `  runtimeCode: '${deployedBytecode}',`, '} as const;', '');
  }
  // Deployed by a user from their own wallet (an adapter no one publishes): its creation code and its runtime code,
  // which \`doctor\` holds a deployed one to.
  for (const [name, { abi, bytecode, deployedBytecode }] of picked(compiled, ['PairMentoFPMM'])) {
    lines.push(
      `export const ${name} = {`,
      `  abi: ${JSON.stringify(abi)},`,
      `  bytecode: '${bytecode}',`,
      `  runtimeCode: '${deployedBytecode}',`,
      '} as const;',
      '',
    );
  }
  return lines.join('\n');
}
