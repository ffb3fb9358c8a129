// Vite's `?raw` imports (a file's text as a string), for web/templates.ts:
// declared here so both the page's and the repository's type checks know them.
declare module '*?raw' {
  const text: string;
  export default text;
}
