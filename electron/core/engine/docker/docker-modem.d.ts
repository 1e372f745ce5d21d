declare module 'docker-modem/lib/http.js' {
  const modemHttp: { maxRedirects: number };
  export default modemHttp;
}
