/* libical as an independent judge of taskcal's output: libical's own whole-file parser (not
 * taskcal's streaming reader) reads the file, and for every VEVENT, VTODO and VJOURNAL this
 * prints one line: UID, DTSTART and the end (DTEND, or DTSTART + DURATION) as Unix seconds,
 * placed by libical through the file's own VTIMEZONEs; "floating" or "date" when the value
 * has no zone. The last line counts the components and libical's X-LIC-ERRORs.
 *
 * usage: libical_judge FILE.ics
 */
#include <libical/ical.h>
#include <stdio.h>
#include <stdlib.h>

static char *read_file(const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    if (fread(text, 1, (size_t)size, file) != (size_t)size) { fclose(file); free(text); return NULL; }
    text[size] = 0;
    fclose(file);
    return text;
}

static void print_time(struct icaltimetype time) {
    if (icaltime_is_null_time(time)) { printf("-"); return; }
    if (time.is_date) { printf("date:%lld", (long long)icaltime_as_timet_with_zone(time, NULL)); return; }
    if (time.zone == NULL) { printf("floating:%04d%02d%02dT%02d%02d%02d", time.year, time.month, time.day, time.hour, time.minute, time.second); return; }
    printf("%lld", (long long)icaltime_as_timet_with_zone(time, time.zone));
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: libical_judge FILE.ics\n"); return 2; }
    icalerror_set_errors_are_fatal(0);
    char *text = read_file(argv[1]);
    if (!text) { fprintf(stderr, "cannot read %s\n", argv[1]); return 2; }
    icalcomponent *root = icalparser_parse_string(text);
    if (!root) { printf("unparsable\n"); return 1; }
    int count = 0;
    icalcomponent_kind kinds[] = {ICAL_VEVENT_COMPONENT, ICAL_VTODO_COMPONENT, ICAL_VJOURNAL_COMPONENT};
    for (int k = 0; k < 3; k++) {
        for (icalcomponent *c = icalcomponent_get_first_component(root, kinds[k]); c;
             c = icalcomponent_get_next_component(root, kinds[k])) {
            count++;
            const char *uid = icalcomponent_get_uid(c);
            printf("%s %s ", icalcomponent_kind_to_string(kinds[k]), uid ? uid : "-");
            print_time(icalcomponent_get_dtstart(c));
            printf(" ");
            if (kinds[k] == ICAL_VTODO_COMPONENT) {
                print_time(icalcomponent_get_due(c));
            } else {
                print_time(icalcomponent_get_dtend(c));
            }
            printf("\n");
        }
    }
    printf("components %d errors %d\n", count, icalcomponent_count_errors(root));
    icalcomponent_free(root);
    free(text);
    return 0;
}
