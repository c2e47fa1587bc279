import { type Chain, type PublicClient, type Transport, defineChain } from 'viem';
import { celo } from 'viem/chains';

/** A viem chain for a node we reach at `rpcUrl`: Celo's definition when the id is Celo's, with our RPC. */
export function chainFor(chainId: number, rpcUrl: string): Chain {
  const base = chainId === celo.id ? celo : undefined;
  return defineChain({
    ...(base ?? {
      name: `chain ${chainId}`,
      nativeCurrency: { name: 'Native', symbol: 'NATIVE', decimals: 18 },
    }),
    id: chainId,
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/** A public client bound to a chain (fee estimation and signing need one). */
export type ChainClient = PublicClient<Transport, Chain>;
