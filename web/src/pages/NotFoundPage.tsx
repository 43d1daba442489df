// An address that names no page of the console (a mistyped or outdated link): it says so and offers the
// console's sections, instead of silently showing another page.

import { useLocation } from 'react-router-dom';
import Box from '@cloudscape-design/components/box';
import Container from '@cloudscape-design/components/container';
import SpaceBetween from '@cloudscape-design/components/space-between';

import Link from '../components/Link';
import PageLayout from '../components/PageLayout';
import { CONSOLE_SECTIONS } from '../lib/consoleSections';

export default function NotFoundPage() {
  const { pathname } = useLocation();
  return (
    <PageLayout title="Page not found" description="The address names no page of the console.">
      <div data-page="not-found">
        <Container>
          <SpaceBetween size="s">
            <Box>
              Nothing is at <Box variant="code">{pathname}</Box>. The link may be mistyped, or from an older console.
            </Box>
            <SpaceBetween size="m" direction="horizontal">
              {CONSOLE_SECTIONS.map((s) => (
                <Link key={s.href} href={s.href}>
                  {s.text}
                </Link>
              ))}
            </SpaceBetween>
          </SpaceBetween>
        </Container>
      </div>
    </PageLayout>
  );
}
