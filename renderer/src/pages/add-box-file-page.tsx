import { useNavigate, useSearchParams } from 'react-router-dom';
import { Section } from '../components/ui';
import { BoxFileForm } from '../components/box-file/box-file-form';

/**
 * Add a box file: the file first, then where it goes. `?owner=ORG` (an organization page's button) preselects the
 * owner; once the file is in, its box page.
 */
export function AddBoxFilePage() {
  const [query] = useSearchParams();
  const navigate = useNavigate();
  return (
    <>
      <div className="page-head">
        <h1>Add a box file</h1>
      </div>
      <Section title="The file and where it goes">
        <p className="muted">
          Drop the .box file that <code>vagrant package</code> or Packer made: its provider and architecture are read
          from it. The box and the version are made if they do not exist yet.
        </p>
        <BoxFileForm
          owner={query.get('owner') ?? undefined}
          release
          onDone={(r) => navigate(`/boxes/${r.box.split('/').map(encodeURIComponent).join('/')}`)}
        />
      </Section>
    </>
  );
}
