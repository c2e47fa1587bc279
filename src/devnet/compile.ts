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
import {
  artifactBodyDigest,
  artifactInputsDigest,
  bodyLine,
  contractsDir,
  deployable,
  deployableOnUniswapV3,
  inputsLine,
  onUniswapV3Settings,
  ownSettings,
  uniswapV2Core,
  uniswapV3ContractsDir,
  uniswapV3Core,
  uniswapV3Periphery,
} from './artifact-inputs.ts';

export { artifactsModulePath } from './artifact-inputs.ts';

const require = createRequire(import.meta.url);
/** The daemon's own Solidity, never deployed: its runtime code is placed by state override (src/contracts/solidity). */
const daemonContractsDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'contracts', 'solidity');
export const daemonCodeModulePath = join(dirname(fileURLToPath(import.meta.url)), '..', 'contracts', 'solidity-code.ts');

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

/** The full text of `src/devnet/artifacts/contracts.ts`. */
export function renderArtifactsModule(): string {
  // No metadata hash: the bytecode then depends only on the sources, so the staleness check is exact.
  const compiled = compileSolidity(solc, contractsDir, ownSettings);
  const compiledOnUniswapV3 = compileSolidity(solcForUniswapV3, uniswapV3ContractsDir, onUniswapV3Settings);
  const lines: string[] = [];
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
  const body = lines.join('\n');
  const header = [
    '// Generated by `npm run compile-contracts` from src/devnet/contracts, src/devnet/contracts-v3, @uniswap/v2-core,',
    '// @uniswap/v3-core and @uniswap/v3-periphery. Do not edit.',
    `// solc ${solc.version()}; contracts-v3: solc ${solcForUniswapV3.version()}`,
    inputsLine(artifactInputsDigest()),
  ];
  return `${header.join('\n')}\n${bodyLine(artifactBodyDigest(`\n\n${body}`))}\n\n${body}`;
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
  // Deployed by a user from their own wallet (an adapter no one publishes, the V3 position mover): its creation code and
  // its runtime code, which \`doctor\` and every use hold a deployed one to.
  for (const [name, { abi, bytecode, deployedBytecode }] of picked(compiled, ['PairMentoFPMM', 'V3RangeMover'])) {
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
