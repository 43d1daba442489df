// Text that wraps between its words, and inside a long name only after ":" or "/": never at the hyphen of a
// zone, an id or a name ("us-east-1f", "subnet-74c1…"), where browsers otherwise break it ("us-" / "east-1f").

import { Fragment } from 'react';

export default function Unbroken({ text }: { text: string }) {
  return (
    <>
      {text.split(/(\s+)/).map((word, i) =>
        word.includes('-') ? (
          <Fragment key={i}>
            {word.split(/(?<=[:/])/).map((part, j) => (
              <Fragment key={j}>
                <span style={{ whiteSpace: 'nowrap' }}>{part}</span>
                <wbr />
              </Fragment>
            ))}
          </Fragment>
        ) : (
          word
        ),
      )}
    </>
  );
}
