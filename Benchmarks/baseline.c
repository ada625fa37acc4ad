/* The baseline taskcal is measured against: the same work done with libical alone.
 *
 *   baseline parse FILE.ics   stream the file one component at a time (icalparser_get_line +
 *                             icalparser_add_line, VCALENDAR wrapper skipped, as taskcal does),
 *                             walk every VEVENT's properties and VALARMs, read DTSTART/DTEND as
 *                             Unix seconds, free; prints the event count
 *   baseline build N OUT.ics  build N VEVENTs with the fields taskcal writes (UID, DTSTAMP,
 *                             DTSTART, DTEND, SUMMARY, DESCRIPTION; every 5th a VALARM, every
 *                             20th a 2 KB inline ATTACH) and serialize them one by one
 *
 * Build: cc -O2 -o baseline Benchmarks/baseline.c $(pkg-config --cflags --libs libical)
 */
#include <libical/ical.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *line_gen(char *s, size_t size, void *d) { return fgets(s, (int)size, (FILE *)d); }

static int parse(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); return 2; }
    icalparser *parser = icalparser_new();
    icalparser_set_gen_data(parser, f);
    icalcomponent *holder = icalcomponent_new(ICAL_VCALENDAR_COMPONENT);
    long events = 0, properties = 0;
    long long checksum = 0;
    char *line;
    while ((line = icalparser_get_line(parser, line_gen)) != NULL) {
        if (strncmp(line, "BEGIN:VCALENDAR", 15) == 0 || strncmp(line, "END:VCALENDAR", 13) == 0) {
            icalmemory_free_buffer(line);
            continue;
        }
        icalcomponent *c = icalparser_add_line(parser, line);
        icalmemory_free_buffer(line);
        if (!c) continue;
        if (icalcomponent_isa(c) == ICAL_VTIMEZONE_COMPONENT) { icalcomponent_add_component(holder, c); continue; }
        icalcomponent_add_component(holder, c);
        if (icalcomponent_isa(c) == ICAL_VEVENT_COMPONENT) {
            events++;
            struct icaltimetype s = icalcomponent_get_dtstart(c), e = icalcomponent_get_dtend(c);
            checksum += icaltime_as_timet_with_zone(s, s.zone) + icaltime_as_timet_with_zone(e, e.zone);
            for (icalproperty *p = icalcomponent_get_first_property(c, ICAL_ANY_PROPERTY); p;
                 p = icalcomponent_get_next_property(c, ICAL_ANY_PROPERTY)) {
                properties++;
                if (icalproperty_isa(p) == ICAL_SUMMARY_PROPERTY || icalproperty_isa(p) == ICAL_DESCRIPTION_PROPERTY)
                    checksum += (long long)strlen(icalproperty_get_summary(p) ? icalproperty_get_summary(p) : "");
                if (icalproperty_isa(p) == ICAL_ATTACH_PROPERTY) {
                    icalattach *a = icalproperty_get_attach(p);
                    if (a && !icalattach_get_is_url(a)) checksum += (long long)strlen((const char *)icalattach_get_data(a));
                }
            }
            for (icalcomponent *a = icalcomponent_get_first_component(c, ICAL_VALARM_COMPONENT); a;
                 a = icalcomponent_get_next_component(c, ICAL_VALARM_COMPONENT)) {
                struct icaltriggertype t = icalproperty_get_trigger(icalcomponent_get_first_property(a, ICAL_TRIGGER_PROPERTY));
                checksum += icaldurationtype_as_int(t.duration);
            }
        }
        icalcomponent_remove_component(holder, c);
        icalcomponent_free(c);
    }
    icalcomponent_free(holder);
    icalparser_free(parser);
    fclose(f);
    printf("%ld events, %ld properties, checksum %lld\n", events, properties, checksum);
    return 0;
}

static int build(long n, const char *path) {
    FILE *out = fopen(path, "w");
    if (!out) { perror(path); return 2; }
    fputs("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//baseline//EN\r\nCALSCALE:GREGORIAN\r\n", out);
    icaltimezone *utc = icaltimezone_get_utc_timezone();
    char blob[2732];
    for (size_t i = 0; i < sizeof blob - 1; i++) blob[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[i % 64];
    blob[sizeof blob - 1] = 0;
    char uid[64];
    for (long i = 1; i <= n; i++) {
        long start = 1790000000 + i * 3600;
        icalcomponent *e = icalcomponent_new(ICAL_VEVENT_COMPONENT);
        snprintf(uid, sizeof uid, "taskcal-%ld@taskcal.invalid", i);
        icalcomponent_set_uid(e, uid);
        icalcomponent_set_dtstamp(e, icaltime_from_timet_with_zone(1700000000, 0, utc));
        icalcomponent_set_dtstart(e, icaltime_from_timet_with_zone(start, 0, utc));
        icalcomponent_set_dtend(e, icaltime_from_timet_with_zone(start + 1800, 0, utc));
        icalcomponent_set_summary(e, "Überprüfung отчёт plan; review, 会議 😀");
        icalcomponent_set_description(e, "встреча 会議 deadline 🇯🇵 naïve dentist call Überprüfung draft back\\slash "
                                          "draft call groceries plan; Überprüfung draft dentist deadline naïve\nemail "
                                          "back\\slash naïve 😀 Überprüfung back\\slash отчёт встреча sprint review");
        if (i % 5 == 0) {
            icalcomponent *a = icalcomponent_new(ICAL_VALARM_COMPONENT);
            icalcomponent_add_property(a, icalproperty_new_action(ICAL_ACTION_DISPLAY));
            struct icaltriggertype t = icaltriggertype_from_string("-PT15M");
            icalcomponent_add_property(a, icalproperty_new_trigger(t));
            icalcomponent_add_property(a, icalproperty_new_description("会議 email call"));
            icalcomponent_add_component(e, a);
        }
        if (i % 20 == 0) {
            icalattach *at = icalattach_new_from_data(blob, NULL, NULL);
            icalproperty *p = icalproperty_new_attach(at);
            icalattach_unref(at);
            icalproperty_add_parameter(p, icalparameter_new_encoding(ICAL_ENCODING_BASE64));
            icalproperty_add_parameter(p, icalparameter_new_value(ICAL_VALUE_BINARY));
            icalproperty_add_parameter(p, icalparameter_new_fmttype("application/octet-stream"));
            icalproperty_add_parameter(p, icalparameter_new_filename("file.bin"));
            icalcomponent_add_property(e, p);
        }
        char *text = icalcomponent_as_ical_string_r(e);
        fputs(text, out);
        icalmemory_free_buffer(text);
        icalcomponent_free(e);
    }
    fputs("END:VCALENDAR\r\n", out);
    fclose(out);
    printf("%ld events written\n", n);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "parse") == 0) return parse(argv[2]);
    if (argc == 4 && strcmp(argv[1], "build") == 0) return build(atol(argv[2]), argv[3]);
    fprintf(stderr, "usage: baseline parse FILE.ics | baseline build N OUT.ics\n");
    return 2;
}
