// Breadcrumbs that navigate inside the single-page app, as Link does.

import BreadcrumbGroup, { type BreadcrumbGroupProps } from '@cloudscape-design/components/breadcrumb-group';
import { useNavigate } from 'react-router-dom';

export default function Breadcrumbs({ items }: { items: BreadcrumbGroupProps.Item[] }) {
  const navigate = useNavigate();
  return (
    <BreadcrumbGroup
      ariaLabel="Breadcrumbs"
      items={items}
      onFollow={(event) => {
        event.preventDefault();
        navigate(event.detail.href);
      }}
    />
  );
}
