// The token lives in this tab's session storage only (issue 16): never in a URL, a cookie
// or local storage, and it is gone when the tab closes. The chosen store is kept the same way.

const TOKEN_KEY = 'store-console.token';
const STORE_KEY = 'store-console.store';

export const readToken = () => sessionStorage.getItem(TOKEN_KEY);
export const keepToken = (token) => sessionStorage.setItem(TOKEN_KEY, token);
export const readStore = () => sessionStorage.getItem(STORE_KEY);
export const keepStore = (storeNumber) => sessionStorage.setItem(STORE_KEY, storeNumber);

export function forget() {
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(STORE_KEY);
}
