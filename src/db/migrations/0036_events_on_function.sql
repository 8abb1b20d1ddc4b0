-- Whether a session writes the event log, said once: the statements that write events gate their
-- rows on it (EVENTS_ON, src/campaign/events.ts) and the trigger its wake-up of the readers
-- (0035). A SQL function this simple is inlined where a statement calls it: the same plan as the
-- expression written out.
CREATE OR REPLACE FUNCTION "dialer_events_on"() RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE AS $$
	SELECT coalesce(current_setting('dialer.events', true), 'on') <> 'off'
$$;

CREATE OR REPLACE FUNCTION "events_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF dialer_events_on() THEN
		PERFORM pg_notify('events', '');
	END IF;
	RETURN NULL;
END $$;
