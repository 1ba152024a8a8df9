/** A JSON document as JSON.parse returns it and JSON.stringify accepts it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
