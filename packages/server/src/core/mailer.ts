/** A mail as Roost writes it: always a plain text and an HTML part. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** A tag saying what the mail is for (`activation`, `reset`, ...), for the outbox and logs. */
  kind: string;
}

/** The port through which the domain sends mail; mail/ holds the implementations. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): Promise<void>;
}
