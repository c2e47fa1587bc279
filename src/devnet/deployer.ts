/**
 * The devnet's deployer: the deployer account's clients, and deploy/call that wait for each transaction, so that
 * addresses are the same on every run and a failed step names itself.
 */
import {
  type Abi,
  type Address,
  type ContractFunctionArgs,
  type ContractFunctionName,
  type Hash,
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
} from 'viem';
import { chainFor } from '../chains.ts';
import { devnetAccount } from './accounts.ts';
import { devnetReceipt } from './receipt.ts';
import { roles } from './world-spec.ts';

type Artifact = { abi: Abi; bytecode: `0x${string}` };

export class DeploymentError extends Error {
  override name = 'DeploymentError';
}

export type Deployer = ReturnType<typeof createDeployer>;

export function createDeployer(rpcUrl: string, chainId: number) {
  const deployer = devnetAccount(roles.deployer);
  // No retries: the node is on this machine, and one that is gone (a stop during start-up) should fail at once.
  const transport = http(rpcUrl, { batch: true, retryCount: 0 });
  const chain = chainFor(chainId, rpcUrl);
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 10, cacheTime: 0 });
  const wallet = createWalletClient({ chain, transport, account: deployer.account });

  async function confirm(hash: Hash, what: string) {
    // A node that is gone (stopped by Ctrl-C during start-up) fails this at once, so the stop is not held up.
    const receipt = await devnetReceipt(publicClient, hash, { timeoutMs: 30_000 });
    if (receipt.status !== 'success') throw new DeploymentError(`devnet deployment failed at: ${what}`);
    return receipt;
  }

  return {
    deployer,
    publicClient,
    async deploy(name: string, artifact: Artifact, args: readonly unknown[] = []): Promise<Address> {
      const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args });
      const receipt = await confirm(hash, `deploy ${name}`);
      if (!receipt.contractAddress) throw new DeploymentError(`deploy ${name} returned no address`);
      return getAddress(receipt.contractAddress);
    },
    async call<const abi extends Abi, name extends ContractFunctionName<abi, 'nonpayable'>>(
      address: Address,
      abi: abi,
      functionName: name,
      args: ContractFunctionArgs<abi, 'nonpayable', name>,
    ): Promise<void> {
      // viem's generic write parameters do not narrow through this wrapper; the signature above keeps callers typed.
      // An estimate is made in the latest block's second; mined in the next one, a Uniswap pool also writes its
      // price accumulators or an oracle observation (tens of thousands of gas more): headroom, as on a real chain.
      const gas = await publicClient.estimateContractGas({ address, abi, functionName, args, account: deployer.account } as never);
      const hash = await wallet.writeContract({ address, abi, functionName, args, gas: (gas * 3n) / 2n + 100_000n } as never);
      await confirm(hash, `${functionName} on ${address}`);
    },
  };
}
