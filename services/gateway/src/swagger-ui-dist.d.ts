/** swagger-ui-dist ships no types; the gateway uses only the function telling where its files are. */
declare module 'swagger-ui-dist/absolute-path' {
  function absolutePath(): string;
  export = absolutePath;
}
