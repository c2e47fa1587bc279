/** solc 0.7.6 (the compiler Uniswap V3's libraries were written for), installed under the alias `solc-0.7`; it ships no types. */
declare module 'solc-0.7' {
  const solc: {
    compile(input: string, callbacks: { import: (path: string) => { contents: string } | { error: string } }): string;
    version(): string;
  };
  export default solc;
}
