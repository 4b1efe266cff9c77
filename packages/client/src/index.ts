/** The interface release the connector speaks; the connector itself comes with its own issue. */
export const PROTOCOL_RELEASE = '0.9.1';
