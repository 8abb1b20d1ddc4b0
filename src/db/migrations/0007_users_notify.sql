-- Every change to a user row is announced on the channel users_changed, with the user's id as
-- the payload (or '*' for a TRUNCATE), so that API processes can drop the row from their
-- in-process user cache (src/http/user-cache.ts) whoever made the change: another API process,
-- an engine billing a call, the CLI, or SQL typed by hand. The notice is sent at commit.
CREATE FUNCTION users_notify_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('users_changed', '*');
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM pg_notify('users_changed', OLD.id::text);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM pg_notify('users_changed', NEW.id::text);
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER users_notify_changed AFTER INSERT OR UPDATE OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION users_notify_changed();

CREATE TRIGGER users_notify_truncated AFTER TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION users_notify_changed();
