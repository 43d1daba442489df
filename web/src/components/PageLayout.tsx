// A page of the console (Cloudscape's ContentLayout): its breadcrumbs, its title as the h1 with what describes
// it, what sits beside it (info) and its actions, then its content.

import type { ReactNode } from 'react';
import ContentLayout from '@cloudscape-design/components/content-layout';
import Header from '@cloudscape-design/components/header';

type Props = {
  title: ReactNode;
  breadcrumbs?: ReactNode;
  description?: ReactNode;
  info?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
};

export default function PageLayout({ title, breadcrumbs, description, info, actions, children }: Props) {
  return (
    <ContentLayout
      breadcrumbs={breadcrumbs}
      header={
        <Header variant="h1" description={description} info={info} actions={actions}>
          {title}
        </Header>
      }
    >
      {children}
    </ContentLayout>
  );
}
