#define _GNU_SOURCE
#include "CLibicalLookups.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libical's own functions, found past this executable's definitions of the same names. */
static struct {
    icalproperty_kind (*property_string_to_kind)(const char *);
    const char *(*property_kind_to_string)(icalproperty_kind);
    icalvalue_kind (*property_kind_to_value_kind)(icalproperty_kind);
    int (*property_kind_is_valid)(icalproperty_kind);
    int (*value_kind_is_valid)(icalvalue_kind);
    struct icaltimetype (*time_from_string)(const char *);
    char *(*value_as_ical_string_r)(const icalvalue *);
    icalvalue *(*value_new_from_string)(icalvalue_kind, const char *);
} libical;

enum {
    /* Property kinds are 0 to 125 in libical 3.0; the tables cover twice that. */
    PROPERTY_KINDS = 256,
    /* Value kinds run from ICAL_ANY_VALUE (5000) to ICAL_NO_VALUE (5031). */
    VALUE_KINDS = 64,
    /* Open addressing, at most a quarter full. */
    NAME_SLOTS = 512,
    NAME_LONGEST = 31,
};

struct name_slot {
    uint8_t length; /* 0: empty */
    char name[NAME_LONGEST];
    icalproperty_kind kind;
};

static struct name_slot names[NAME_SLOTS];
static const char *kind_names[PROPERTY_KINDS];
static icalvalue_kind kind_value_kinds[PROPERTY_KINDS];
static signed char kind_valid[PROPERTY_KINDS];
static signed char value_kind_valid[VALUE_KINDS];
static int reads_times;
static pthread_once_t loaded = PTHREAD_ONCE_INIT;
/* Set when icalproperty_string_to_kind here hands a name it has no entry for to libical (an X-
   name): how taskcal_lookups_installed tells that libical's parser reaches it, off the path of
   the names in the table. */
static atomic_int name_asked;

static void *original(const char *symbol) {
    void *function = dlsym(RTLD_NEXT, symbol);
    if (function == NULL) {
        /* Only a libical linked statically could hide it, and that fails to link first. */
        fprintf(stderr, "taskcal: libical's %s is not reachable: %s\n", symbol, dlerror());
        abort();
    }
    return function;
}

static inline unsigned char fold(unsigned char byte) {
    return (byte >= 'a' && byte <= 'z') ? (unsigned char)(byte - ('a' - 'A')) : byte;
}

/* FNV-1a over the ASCII-upper-cased bytes; the length is counted on the way, up to one past
   the longest name. */
static inline uint32_t name_hash(const char *string, size_t *length) {
    uint32_t hash = 2166136261u;
    size_t count = 0;
    while (string[count] != '\0' && count <= NAME_LONGEST) {
        hash = (hash ^ fold((unsigned char)string[count])) * 16777619u;
        count++;
    }
    *length = count;
    return hash;
}

static const struct name_slot *find_name(const char *string) {
    size_t length;
    uint32_t slot = name_hash(string, &length) & (NAME_SLOTS - 1);
    if (length == 0 || length > NAME_LONGEST) return NULL;
    for (; names[slot].length != 0; slot = (slot + 1) & (NAME_SLOTS - 1)) {
        if (names[slot].length != length) continue;
        size_t index = 0;
        while (index < length
               && fold((unsigned char)string[index]) == (unsigned char)names[slot].name[index]) {
            index++;
        }
        if (index == length) return &names[slot];
    }
    return NULL;
}

static void add_name(const char *name) {
    size_t length;
    uint32_t slot = name_hash(name, &length) & (NAME_SLOTS - 1);
    if (length == 0 || length > NAME_LONGEST || find_name(name) != NULL) return;
    while (names[slot].length != 0) slot = (slot + 1) & (NAME_SLOTS - 1);
    for (size_t index = 0; index < length; index++) {
        names[slot].name[index] = (char)fold((unsigned char)name[index]);
    }
    /* libical's answer for the name, whatever entry of its table gives it. */
    names[slot].kind = libical.property_string_to_kind(name);
    names[slot].length = (uint8_t)length;
}

static int fast_time(const char *string, struct icaltimetype *time);

static int same_time(struct icaltimetype a, struct icaltimetype b) {
    return a.year == b.year && a.month == b.month && a.day == b.day && a.hour == b.hour
        && a.minute == b.minute && a.second == b.second && a.is_date == b.is_date
        && a.is_daylight == b.is_daylight && a.zone == b.zone;
}

static void load(void) {
    libical.property_string_to_kind = original("icalproperty_string_to_kind");
    libical.property_kind_to_string = original("icalproperty_kind_to_string");
    libical.property_kind_to_value_kind = original("icalproperty_kind_to_value_kind");
    libical.property_kind_is_valid = original("icalproperty_kind_is_valid");
    libical.value_kind_is_valid = original("icalvalue_kind_is_valid");
    libical.time_from_string = original("icaltime_from_string");
    libical.value_as_ical_string_r = original("icalvalue_as_ical_string_r");
    libical.value_new_from_string = original("icalvalue_new_from_string");
    for (int kind = 0; kind < PROPERTY_KINDS; kind++) {
        kind_names[kind] = libical.property_kind_to_string((icalproperty_kind)kind);
        kind_value_kinds[kind] = libical.property_kind_to_value_kind((icalproperty_kind)kind);
        kind_valid[kind] = (signed char)libical.property_kind_is_valid((icalproperty_kind)kind);
        if (kind_names[kind] != NULL) add_name(kind_names[kind]);
    }
    for (int index = 0; index < VALUE_KINDS; index++) {
        value_kind_valid[index] =
            (signed char)libical.value_kind_is_valid((icalvalue_kind)(ICAL_ANY_VALUE + index));
    }
    /* The canonical forms must read as libical reads them, or libical reads them all. */
    static const char *const probes[] = {
        "20260921T154107Z", "20260921T154107", "20260921", "19700101T000000Z", "99991231T235960",
    };
    reads_times = 1;
    for (size_t index = 0; index < sizeof probes / sizeof probes[0]; index++) {
        struct icaltimetype mine;
        if (!fast_time(probes[index], &mine)
            || !same_time(mine, libical.time_from_string(probes[index]))) {
            reads_times = 0;
        }
    }
}

static inline void ensure_loaded(void) { pthread_once(&loaded, load); }

icalproperty_kind icalproperty_string_to_kind(const char *string) {
    ensure_loaded();
    if (string != NULL) {
        const struct name_slot *slot = find_name(string);
        if (slot != NULL) return slot->kind;
    }
    if (!atomic_load_explicit(&name_asked, memory_order_relaxed)) {
        atomic_store_explicit(&name_asked, 1, memory_order_relaxed);
    }
    return libical.property_string_to_kind(string);
}

const char *icalproperty_kind_to_string(icalproperty_kind kind) {
    ensure_loaded();
    if ((unsigned)kind < PROPERTY_KINDS) return kind_names[kind];
    return libical.property_kind_to_string(kind);
}

icalvalue_kind icalproperty_kind_to_value_kind(icalproperty_kind kind) {
    ensure_loaded();
    if ((unsigned)kind < PROPERTY_KINDS) return kind_value_kinds[kind];
    return libical.property_kind_to_value_kind(kind);
}

int icalproperty_kind_is_valid(const icalproperty_kind kind) {
    ensure_loaded();
    if ((unsigned)kind < PROPERTY_KINDS) return kind_valid[kind];
    return libical.property_kind_is_valid(kind);
}

int icalvalue_kind_is_valid(const icalvalue_kind kind) {
    ensure_loaded();
    unsigned index = (unsigned)kind - (unsigned)ICAL_ANY_VALUE;
    if (index < VALUE_KINDS) return value_kind_valid[index];
    return libical.value_kind_is_valid(kind);
}

/* `count` ASCII digits at `string` as a number, or 0 when one is not a digit. */
static inline int read_digits(const char *string, int count, int *value) {
    int number = 0;
    for (int index = 0; index < count; index++) {
        unsigned digit = (unsigned)((unsigned char)string[index] - '0');
        if (digit > 9) return 0;
        number = number * 10 + (int)digit;
    }
    *value = number;
    return 1;
}

/* A DATE (8 digits) or a DATE-TIME (8 digits, T, 6 digits, an optional Z), read as libical's
   sscanf formats read them; 0 for anything else. */
static int fast_time(const char *string, struct icaltimetype *time) {
    size_t length = strnlen(string, 17);
    struct icaltimetype parsed = icaltime_null_time();
    if (length == 8) {
        if (!read_digits(string, 4, &parsed.year) || !read_digits(string + 4, 2, &parsed.month)
            || !read_digits(string + 6, 2, &parsed.day)) {
            return 0;
        }
        parsed.is_date = 1;
    } else if ((length == 15 || (length == 16 && string[15] == 'Z')) && string[8] == 'T') {
        if (!read_digits(string, 4, &parsed.year) || !read_digits(string + 4, 2, &parsed.month)
            || !read_digits(string + 6, 2, &parsed.day)
            || !read_digits(string + 9, 2, &parsed.hour)
            || !read_digits(string + 11, 2, &parsed.minute)
            || !read_digits(string + 13, 2, &parsed.second)) {
            return 0;
        }
        if (length == 16) parsed.zone = icaltimezone_get_utc_timezone();
    } else {
        return 0;
    }
    *time = parsed;
    return 1;
}

struct icaltimetype icaltime_from_string(const char *string) {
    ensure_loaded();
    struct icaltimetype time;
    if (string != NULL && reads_times && fast_time(string, &time)) return time;
    return libical.time_from_string(string);
}

/* Whether parsing `event` with libical's parser reaches the function that sets `asked`. */
static int parsing_reaches(const char *event, atomic_int *asked) {
    atomic_store(asked, 0);
    icalcomponent *component = icalparser_parse_string(event);
    int reached = atomic_load(asked);
    if (component != NULL) icalcomponent_free(component);
    return reached;
}

int taskcal_lookups_installed(void) {
    ensure_loaded();
    return parsing_reaches("BEGIN:VEVENT\r\nX-TASKCAL-PROBE:x\r\nEND:VEVENT\r\n", &name_asked);
}

int taskcal_lookups_reads_times(void) {
    ensure_loaded();
    return reads_times;
}

icalproperty_kind taskcal_libical_property_string_to_kind(const char *string) {
    ensure_loaded();
    return libical.property_string_to_kind(string);
}

const char *taskcal_libical_property_kind_to_string(icalproperty_kind kind) {
    ensure_loaded();
    return libical.property_kind_to_string(kind);
}

icalvalue_kind taskcal_libical_property_kind_to_value_kind(icalproperty_kind kind) {
    ensure_loaded();
    return libical.property_kind_to_value_kind(kind);
}

int taskcal_libical_property_kind_is_valid(icalproperty_kind kind) {
    ensure_loaded();
    return libical.property_kind_is_valid(kind);
}

int taskcal_libical_value_kind_is_valid(icalvalue_kind kind) {
    ensure_loaded();
    return libical.value_kind_is_valid(kind);
}

struct icaltimetype taskcal_libical_time_from_string(const char *string) {
    ensure_loaded();
    return libical.time_from_string(string);
}

/* Writing values: TEXT escaped and DATE-TIME / DATE printed as libical 3.0's
   icalvalue_as_ical_string_r does (icalmemory_strdup_and_quote, print_datetime_to_string), in
   one pass instead of a function call a byte and two snprintf calls a time. Reading: TEXT
   unescaped as its icalvalue_new_from_string does (icalmemory_strdup_and_dequote), the runs
   between backslashes copied at once. */

/* Set when icalvalue_as_ical_string_r here is reached: how taskcal_value_writer_installed tells
   that libical's serializer calls it. */
static atomic_int value_asked;
static int writes_values;
/* Whether TEXT values are read here (icalvalue_new_from_string). */
static int reads_texts;
static pthread_once_t values_checked = PTHREAD_ONCE_INIT;

/* What a byte that ends a run of kept bytes of a TEXT value becomes: 0 nothing (the NUL at the
   end), 1 dropped (\r \b \f), 2 a backslash before it (; , \), 3 "\n". */
static const unsigned char text_class[256] = {
    ['\r'] = 1, ['\b'] = 1, ['\f'] = 1, [';'] = 2, [','] = 2, ['\\'] = 2, ['\n'] = 3,
};

/* `text` escaped as libical escapes the value of a property that is not a list (where it keeps
   , and ; as they are); a buffer the caller frees, or NULL when out of memory. */
static char *fast_text(const char *text) {
    size_t length = strlen(text);
    /* At most two bytes for each, and the NUL. */
    char *out = malloc(2 * length + 1);
    if (out == NULL) {
        icalerror_set_errno(ICAL_NEWFAILED_ERROR);
        return NULL;
    }
    char *position = out;
    const char *end = text + length;
    for (const char *byte = text; byte < end; byte++) {
        /* The bytes up to the next one that is not kept, copied at once. */
        size_t run = strcspn(byte, "\r\b\f;,\\\n");
        memcpy(position, byte, run);
        position += run;
        byte += run;
        switch (text_class[(unsigned char)*byte]) {
        case 0: break; /* the NUL at the end */
        case 1: break;
        case 2:
            *position++ = '\\';
            *position++ = *byte;
            break;
        default:
            *position++ = '\\';
            *position++ = 'n';
        }
    }
    *position = '\0';
    return out;
}

static inline char *put_digits(char *out, int value, int count) {
    for (int index = count - 1; index >= 0; index--) {
        out[index] = (char)('0' + value % 10);
        value /= 10;
    }
    return out + count;
}

/* `time` printed as libical prints a DATE (`date_only`) or DATE-TIME value, or NULL when a
   field is outside what its digits hold (libical's snprintf and strncat then give something
   else, which libical's own function gives). */
static char *fast_time_text(struct icaltimetype time, int date_only, int *handled) {
    *handled = time.year >= 0 && time.year <= 9999 && time.month >= 0 && time.month <= 99
        && time.day >= 0 && time.day <= 99 && time.hour >= 0 && time.hour <= 99
        && time.minute >= 0 && time.minute <= 99 && time.second >= 0 && time.second <= 99;
    if (!*handled) return NULL;
    char *out = malloc(date_only ? 9 : 20);
    if (out == NULL) {
        icalerror_set_errno(ICAL_NEWFAILED_ERROR);
        return NULL;
    }
    char *position = put_digits(out, time.year, 4);
    position = put_digits(position, time.month, 2);
    position = put_digits(position, time.day, 2);
    if (!date_only && !time.is_date) {
        *position++ = 'T';
        position = put_digits(position, time.hour, 2);
        position = put_digits(position, time.minute, 2);
        position = put_digits(position, time.second, 2);
        if (time.zone == icaltimezone_get_utc_timezone()) *position++ = 'Z';
    }
    *position = '\0';
    return out;
}

/* The value as written here, or NULL with *handled 0 when libical's function is to write it. */
static char *fast_value(const icalvalue *value, int *handled) {
    *handled = 0;
    switch (icalvalue_isa(value)) {
    case ICAL_TEXT_VALUE: {
        const char *text = icalvalue_get_text(value);
        icalproperty *parent = icalvalue_get_parent((icalvalue *)value);
        if (text == NULL || parent == NULL) return NULL;
        switch (icalproperty_isa(parent)) {
        /* libical keeps , and ; unescaped in these: its function writes them. */
        case ICAL_CATEGORIES_PROPERTY:
        case ICAL_RESOURCES_PROPERTY:
        case ICAL_POLLPROPERTIES_PROPERTY:
        case ICAL_X_PROPERTY: return NULL;
        default: break;
        }
        *handled = 1;
        return fast_text(text);
    }
    case ICAL_DATETIME_VALUE: return fast_time_text(icalvalue_get_datetime(value), 0, handled);
    case ICAL_DATE_VALUE: return fast_time_text(icalvalue_get_date(value), 1, handled);
    default: return NULL;
    }
}

/* A TEXT value read from `quoted` as libical's icalvalue_new_from_string reads it: \n and \N a
   line break, \t \r \b \f (either case) those characters, \; \, \" \\ the character, any
   other escape a space, and a backslash at the end the end. */
static icalvalue *fast_text_value(const char *quoted) {
    size_t length = strlen(quoted);
    char *text = malloc(length + 1);
    if (text == NULL) return libical.value_new_from_string(ICAL_TEXT_VALUE, quoted);
    char *position = text;
    const char *byte = quoted;
    for (;;) {
        size_t run = strcspn(byte, "\\");
        memcpy(position, byte, run);
        position += run;
        byte += run;
        if (*byte == '\0' || *++byte == '\0') break;
        switch (*byte) {
        case 'n':
        case 'N': *position++ = '\n'; break;
        case 't':
        case 'T': *position++ = '\t'; break;
        case 'r':
        case 'R': *position++ = '\r'; break;
        case 'b':
        case 'B': *position++ = '\b'; break;
        case 'f':
        case 'F': *position++ = '\f'; break;
        case ';':
        case ',':
        case '"':
        case '\\': *position++ = *byte; break;
        default: *position++ = ' ';
        }
        byte++;
    }
    *position = '\0';
    icalvalue *value = icalvalue_new_text(text);
    free(text);
    return value;
}

static int same_text(char *mine, char *theirs) {
    int same = mine != NULL && theirs != NULL && strcmp(mine, theirs) == 0;
    free(mine);
    free(theirs);
    return same;
}

/* Values whose written form must be libical's, or libical writes them all. */
static void check_values(void) {
    ensure_loaded();
    icalerrorenum error = icalerrno;
    static const char *const texts[] = {
        "", "plain", "a;b,c\\d\ne\tf\rg\bh\fi", "\xc3\x9c" "berpr\xc3\xbc" "fung \xf0\x9f\x98\x80",
        ";;,,\\\\\n\n", "\"quoted\" 'text' :colon:",
    };
    static const struct icaltimetype times[] = {
        {2026, 9, 21, 15, 41, 7, 0, 0, NULL}, {1970, 1, 1, 0, 0, 0, 0, 0, NULL},
        {2999, 12, 31, 23, 59, 60, 0, 0, NULL}, {2026, 9, 21, 0, 0, 0, 1, 0, NULL},
    };
    int same = 1;
    for (size_t index = 0; index < sizeof texts / sizeof texts[0]; index++) {
        icalproperty *property = icalproperty_new_description(texts[index]);
        const icalvalue *value = icalproperty_get_value(property);
        int handled;
        same &= same_text(fast_value(value, &handled), libical.value_as_ical_string_r(value))
            && handled;
        icalproperty_free(property);
    }
    for (size_t index = 0; index < sizeof times / sizeof times[0]; index++) {
        for (int utc = 0; utc < 2; utc++) {
            struct icaltimetype time = times[index];
            if (utc) time.zone = icaltimezone_get_utc_timezone();
            icalvalue *values[] = {
                time.is_date ? icalvalue_new_date(time) : icalvalue_new_datetime(time),
                icalvalue_new_datetimedate(time),
            };
            for (size_t kind = 0; kind < 2; kind++) {
                int handled;
                same &= same_text(
                            fast_value(values[kind], &handled),
                            libical.value_as_ical_string_r(values[kind]))
                    && handled;
                icalvalue_free(values[kind]);
            }
        }
    }
    writes_values = same;
    /* Reading: each escape libical knows, in both cases, one it does not, and a backslash at
       the end. */
    static const char *const quoted[] = {
        "", "plain", "a\\nb\\Nc\\td\\Te\\rf\\Rg\\bh\\Bi\\fj\\Fk", "\\;\\,\\\"\\\\",
        "\\x\\:\\ \\\xc3\xbc", "end\\", "\\", "\xc3\x9c" "ber;pr,\xc3\xbc" "fung",
    };
    int reads = 1;
    for (size_t index = 0; index < sizeof quoted / sizeof quoted[0]; index++) {
        icalvalue *mine = fast_text_value(quoted[index]);
        icalvalue *theirs = libical.value_new_from_string(ICAL_TEXT_VALUE, quoted[index]);
        reads &= mine != NULL && theirs != NULL
            && strcmp(icalvalue_get_text(mine), icalvalue_get_text(theirs)) == 0;
        if (mine != NULL) icalvalue_free(mine);
        if (theirs != NULL) icalvalue_free(theirs);
    }
    reads_texts = reads;
    icalerrno = error;
}

char *icalvalue_as_ical_string_r(const icalvalue *value) {
    pthread_once(&values_checked, check_values);
    if (!atomic_load_explicit(&value_asked, memory_order_relaxed)) {
        atomic_store_explicit(&value_asked, 1, memory_order_relaxed);
    }
    if (value != NULL && writes_values) {
        int handled;
        char *text = fast_value(value, &handled);
        if (handled) return text;
    }
    return libical.value_as_ical_string_r(value);
}

int taskcal_value_writer_installed(void) {
    pthread_once(&values_checked, check_values);
    atomic_store(&value_asked, 0);
    icalproperty *property = icalproperty_new_summary("probe");
    char *text = icalproperty_as_ical_string_r(property);
    int reached = atomic_load(&value_asked);
    free(text);
    icalproperty_free(property);
    return reached;
}

int taskcal_lookups_writes_values(void) {
    pthread_once(&values_checked, check_values);
    return writes_values;
}

char *taskcal_libical_value_as_ical_string_r(const icalvalue *value) {
    ensure_loaded();
    return libical.value_as_ical_string_r(value);
}

/* Set when icalvalue_new_from_string here is reached. */
static atomic_int text_asked;

icalvalue *icalvalue_new_from_string(icalvalue_kind kind, const char *str) {
    pthread_once(&values_checked, check_values);
    if (!atomic_load_explicit(&text_asked, memory_order_relaxed)) {
        atomic_store_explicit(&text_asked, 1, memory_order_relaxed);
    }
    if (kind == ICAL_TEXT_VALUE && str != NULL && reads_texts) return fast_text_value(str);
    return libical.value_new_from_string(kind, str);
}

int taskcal_text_reader_installed(void) {
    pthread_once(&values_checked, check_values);
    return parsing_reaches("BEGIN:VEVENT\r\nSUMMARY:a\\, b\r\nEND:VEVENT\r\n", &text_asked);
}

int taskcal_lookups_reads_texts(void) {
    pthread_once(&values_checked, check_values);
    return reads_texts;
}

icalvalue *taskcal_libical_value_new_from_string(icalvalue_kind kind, const char *str) {
    ensure_loaded();
    return libical.value_new_from_string(kind, str);
}
