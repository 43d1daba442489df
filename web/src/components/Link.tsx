// A Cloudscape link that navigates inside the single-page app.

import CloudscapeLink, { type LinkProps } from '@cloudscape-design/components/link';
import { useNavigate } from 'react-router-dom';

export default function Link(props: LinkProps & { href: string }) {
  const navigate = useNavigate();
  return (
    <CloudscapeLink
      {...props}
      onFollow={(event) => {
        if (props.external) return;
        event.preventDefault();
        navigate(props.href);
      }}
    />
  );
}
