# A store of many forms for the Scripts/bench-* benchmarks (bench-store, bench-teams). Sourced,
# not run, after lib/bench-common.sh.
#
# The sourcing script sets FORMS and TECHNICIANS (the fixture's bulk users u00001.. own the
# forms), WORK, MIADMIN, MKHAN_PASSWORD and MIADMIN_CONFIG (start_fixture) before build_store.

# The fixture's bulk uids have 5 digits, more when T needs them.
uid_digits() {
    local d=${#TECHNICIANS}
    ((d < 5)) && d=5
    echo "$d"
}

# Creates $WORK/store.sqlite: the schema from miadmin itself, then N forms from the sqlite3 shell.
build_store() {
    local store=$WORK/store.sqlite digits
    digits=$(uid_digits)
    config_for "$store" "$WORK/master.json"
    log "creating the schema: miadmin -c 'forms --owner nobody' on an empty store"
    local rc=0
    MIADMIN_PASSWORD=$MKHAN_PASSWORD "$MIADMIN" --config "$WORK/master.json" --user mkhan -c 'forms --owner nobody' \
        >"$WORK/schema.out" 2>"$WORK/stderr.out" || rc=$?
    ((rc == 0)) || fail_with "miadmin (schema creation)" "$rc" "$WORK/stderr.out"
    [[ -s $store ]] || die "miadmin exited 0 but did not create $store"

    log "inserting $FORMS forms over $TECHNICIANS technicians with the sqlite3 shell"
    local start=$SECONDS
    # Form i: owner o = (i-1) % T + 1, k = (i-1) / T its number among the owner's forms.
    # Site (10) from k % 10, template (5) from the site. 10% of each owner's forms
    # (k % 20 < 2) have a name every owner has ("Pump station 3"): moving one collides.
    # The others carry a unit number that is unique in the store. State from a hash of i:
    # 70% incomplete, 20% completed, 10% submitted. Times in 2025 in three zones.
    sqlite3 -bail "$store" >/dev/null <<SQL
PRAGMA synchronous = OFF;
PRAGMA cache_size = -262144;
BEGIN;
CREATE TEMP TABLE site (k INTEGER PRIMARY KEY, name TEXT);
INSERT INTO site VALUES (0, 'Pump station'), (1, 'Boiler house'), (2, 'Substation'), (3, 'Cooling tower'),
    (4, 'Fire main'), (5, 'Booster pump, north yard'), (6, 'Boiler room'), (7, 'Transformer bay'),
    (8, 'Chiller plant'), (9, 'Sprinkler riser – Zürich depot');
CREATE TEMP TABLE tpl (t INTEGER PRIMARY KEY, name TEXT, tid TEXT, blank TEXT, filled TEXT);
INSERT INTO tpl VALUES
 (0, 'Monthly pump inspection', 'T-17',
  '[{"type":"multipleChoice","text":"Pump condition","options":["Good","Worn","Damaged"],"Max-answers":1,"answer":null},{"type":"trueFalse","text":"Pressure relief valve tested?","answer":null},{"type":"numeric","text":"Outlet pressure (bar)","answer":null}]',
  '[{"type":"multipleChoice","text":"Pump condition","options":["Good","Worn","Damaged"],"Max-answers":1,"answer":[0]},{"type":"trueFalse","text":"Pressure relief valve tested?","answer":true},{"type":"numeric","text":"Outlet pressure (bar)","answer":4.5}]'),
 (1, 'Boiler safety check', 'T-22',
  '[{"type":"trueFalse","text":"Flue clear?","answer":null},{"type":"numeric","text":"Flow temperature (C)","answer":null},{"type":"shortAnswer","text":"Burner serial number","answer":null}]',
  '[{"type":"trueFalse","text":"Flue clear?","answer":true},{"type":"numeric","text":"Flow temperature (C)","answer":72},{"type":"shortAnswer","text":"Burner serial number","answer":"BX-4410"}]'),
 (2, 'HV switchgear inspection', 'T-31',
  '[{"type":"multipleChoice","text":"Hazards present","options":["Noise","Confined space","Electrical"],"Max-answers":0,"answer":null},{"type":"trueFalse","text":"Earthing checked?","answer":null}]',
  '[{"type":"multipleChoice","text":"Hazards present","options":["Noise","Confined space","Electrical"],"Max-answers":0,"answer":[0,2]},{"type":"trueFalse","text":"Earthing checked?","answer":true}]'),
 (3, 'Cooling system service', 'T-08',
  '[{"type":"table","text":"Bearing temperatures (C)","rows":["Motor","Fan"],"columns":["Drive end","Non-drive end"],"noCells":[[1,1]],"answer":null},{"type":"shortAnswer","text":"Refrigerant","answer":null}]',
  '[{"type":"table","text":"Bearing temperatures (C)","rows":["Motor","Fan"],"columns":["Drive end","Non-drive end"],"noCells":[[1,1]],"answer":[["41","39"],["44",null]]},{"type":"shortAnswer","text":"Refrigerant","answer":"R-134a"}]'),
 (4, 'Fire protection test', 'T-40',
  '[{"type":"trueFalse","text":"Alarm sounded at the panel?","answer":null},{"type":"numeric","text":"Static pressure (bar)","answer":null}]',
  '[{"type":"trueFalse","text":"Alarm sounded at the panel?","answer":true},{"type":"numeric","text":"Static pressure (bar)","answer":6.2}]');
INSERT INTO forms (id, owner, name, template, template_id, state, created, created_utc, modified, modified_utc,
                   questions, extra, version, trashed_at)
WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < $FORMS),
f AS (
    SELECT i,
           (i - 1) % $TECHNICIANS + 1 AS o,
           (i - 1) / $TECHNICIANS AS k,
           (i * 2654435761) % 1000003 AS h,
           1735689600 + (i * 48271) % 31536000 AS c,
           CASE i % 3 WHEN 0 THEN 0 WHEN 1 THEN 3600 ELSE 19800 END AS off,
           CASE i % 3 WHEN 0 THEN 'Z' WHEN 1 THEN '+01:00' ELSE '+05:30' END AS zone
    FROM seq)
SELECT f.i,
       printf('u%0${digits}d', f.o),
       CASE WHEN f.k % 20 < 2 THEN printf('%s %d', site.name, f.k / 20 + 1)
            ELSE printf('%s %d, unit %d', site.name, f.k / 20 + 1, f.i) END,
       tpl.name, tpl.tid,
       CASE WHEN f.h % 10 < 7 THEN 'incomplete' WHEN f.h % 10 < 9 THEN 'completed' ELSE 'submitted' END,
       strftime('%Y-%m-%dT%H:%M:%S', f.c + f.off, 'unixepoch') || f.zone, f.c,
       strftime('%Y-%m-%dT%H:%M:%S', f.c + f.off + f.h % 259200, 'unixepoch') || f.zone, f.c + f.h % 259200,
       CASE WHEN f.h % 10 < 7 THEN tpl.blank ELSE tpl.filled END,
       NULL, 1, NULL
FROM f JOIN site ON site.k = f.k % 10 JOIN tpl ON tpl.t = f.k % 5;
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
SQL
    local count
    count=$(sqlite3 "$store" 'SELECT COUNT(*) FROM forms')
    ((count == FORMS)) || die "expected $FORMS forms in the store, found $count"
    log "store ready in $((SECONDS - start)) s: $count forms, $(du -m "$store" | cut -f1) MiB;" \
        "states: $(sqlite3 "$store" "SELECT group_concat(state || ' ' || n, ', ') FROM (SELECT state, COUNT(*) AS n FROM forms GROUP BY state)")"
}
