// Text that wraps between its words, and inside a long name only after ":" or "/" (an ARN, a path): never at the
// hyphen of a zone, an id or a name ("us-east-1f", "subnet-74c1…", where browsers otherwise break it: "us-" /
// "east-1f"), nor mid-word where a narrow column would ("cluster/j2upzew0hcl" + "j").

import { Fragment } from 'react';

export default function Unbroken({ text }: { text: string }) {
  return (
    <>
      {text.split(/(\s+)/).map((word, i) =>
        /^\s*$/.test(word) ? (
          word
        ) : (
          <Fragment key={i}>
            {word.split(/(?<=[:/])/).map((part, j) => (
              <Fragment key={j}>
                <span style={{ whiteSpace: 'nowrap' }}>{part}</span>
                <wbr />
              </Fragment>
            ))}
          </Fragment>
        ),
      )}
    </>
  );
}
