-- The events trigger is per statement, so it fires for an INSERT … SELECT that wrote no row: with
-- the log turned off (dialer.events = 'off', src/campaign/events.ts), every engine statement that
-- would write events still NOTIFYed, and woke every listening session for nothing. A session
-- with the log off writes no event, so it has nothing to wake readers for.
CREATE OR REPLACE FUNCTION "events_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF coalesce(current_setting('dialer.events', true), 'on') <> 'off' THEN
		PERFORM pg_notify('events', '');
	END IF;
	RETURN NULL;
END $$;
