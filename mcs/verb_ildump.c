/* verb_ildump.c - mcs -ildump: each context's method as IL assembler text. */
#include <inttypes.h>
#include <string.h>

#include "mcs_context.h"
#include "mcs_verbs.h"
#include "mcz_agnostic.h"

const mcs_usage usage_ildump = {
    "-ildump [RANGE] FILE",
    "print each context's IL",
    "Per context, as SuperPMI's mcs prints it: the process name, the assembly lines, .class,\n"
    ".method with its signature, .maxstack, .locals (\".locals init\" when the method asks for\n"
    "zeroed locals), then the IL: each instruction as \"IL_xxxx: \" and its text, with no line\n"
    "break after an instruction SuperPMI knows (so they run together on one line) and one after\n"
    "an opcode it does not know, which is also reported on stderr. The texts are SuperPMI's,\n"
    "its slips included: 0x2F prints bgt.s, 0x3C bgt, 0x4D ldind.u8, 0xA3 stelem, leave.s\n"
    "leave; short branch targets add the offset byte unsigned; operands print as the hex of\n"
    "their bytes (stloc.s 0x15, ldc.i4 0x0000002a, ldc.r4 float32(0x3f800000), call\n"
    "<0x06000001>, switch (0x00000002) <0x...> per target).\n"
    "Where mcz differs: it never reads past the IL: an operand that runs past the end prints\n"
    "<truncated: N bytes needed, M left> and ends the listing; names longer than 255 bytes are\n"
    "cut, and missing names print as <unknown>.\n",
    NULL};

enum { OPTION_INIT_LOCALS = 0x10 }; /* CORINFO_OPT_INIT_LOCALS */

/* How SuperPMI's DumpILToConsoleBare prints an operand. */
typedef enum operand {
    OP_NONE,
    OP_HEX1,    /* 0x%02x */
    OP_HEX2,    /* 0x%02x%02x: the u16's bytes, last first */
    OP_HEX4,    /* 0x%02x%02x%02x%02x */
    OP_HEX8,    /* 0x and 16 hex digits */
    OP_FLOAT32, /* float32(0x...) */
    OP_FLOAT64, /* float64(0x...) */
    OP_TOKEN,   /* <0x%02x%02x%02x%02x> */
    OP_BR8,     /* IL_%04x of the next offset plus the byte, unsigned */
    OP_BR32,    /* IL_%04x of the next offset plus the int32 */
    OP_SWITCH   /* (0x count) then <0x target> per target, raw */
} operand;

typedef struct opcode {
    const char *name;
    operand kind;
} opcode;

/* The one-byte opcodes SuperPMI's mcs knows, with its texts (NULL: it does not know it). */
static const opcode one_byte[256] = {
    [0x00] = {"nop", OP_NONE}, [0x01] = {"break", OP_NONE}, [0x02] = {"ldarg.0", OP_NONE},
    [0x03] = {"ldarg.1", OP_NONE}, [0x04] = {"ldarg.2", OP_NONE}, [0x05] = {"ldarg.3", OP_NONE},
    [0x06] = {"ldloc.0", OP_NONE}, [0x07] = {"ldloc.1", OP_NONE}, [0x08] = {"ldloc.2", OP_NONE},
    [0x09] = {"ldloc.3", OP_NONE}, [0x0A] = {"stloc.0", OP_NONE}, [0x0B] = {"stloc.1", OP_NONE},
    [0x0C] = {"stloc.2", OP_NONE}, [0x0D] = {"stloc.3", OP_NONE}, [0x0E] = {"ldarg.s", OP_HEX1},
    [0x0F] = {"ldarga.s", OP_HEX1}, [0x10] = {"starg.s", OP_HEX1}, [0x11] = {"ldloc.s", OP_HEX1},
    [0x12] = {"ldloca.s", OP_HEX1}, [0x13] = {"stloc.s", OP_HEX1}, [0x14] = {"ldnull", OP_NONE},
    [0x15] = {"ldc.i4.m1", OP_NONE}, [0x16] = {"ldc.i4.0", OP_NONE},
    [0x17] = {"ldc.i4.1", OP_NONE}, [0x18] = {"ldc.i4.2", OP_NONE},
    [0x19] = {"ldc.i4.3", OP_NONE}, [0x1A] = {"ldc.i4.4", OP_NONE},
    [0x1B] = {"ldc.i4.5", OP_NONE}, [0x1C] = {"ldc.i4.6", OP_NONE},
    [0x1D] = {"ldc.i4.7", OP_NONE}, [0x1E] = {"ldc.i4.8", OP_NONE},
    [0x1F] = {"ldc.i4.s", OP_HEX1}, [0x20] = {"ldc.i4", OP_HEX4}, [0x21] = {"ldc.i8", OP_HEX8},
    [0x22] = {"ldc.r4", OP_FLOAT32}, [0x23] = {"ldc.r8", OP_FLOAT64}, [0x25] = {"dup", OP_NONE},
    [0x26] = {"pop", OP_NONE}, [0x27] = {"jmp", OP_TOKEN}, [0x28] = {"call", OP_TOKEN},
    [0x29] = {"calli", OP_TOKEN}, [0x2A] = {"ret", OP_NONE}, [0x2B] = {"br.s", OP_BR8},
    [0x2C] = {"brfalse.s", OP_BR8}, [0x2D] = {"brtrue.s", OP_BR8}, [0x2E] = {"beq.s", OP_BR8},
    [0x2F] = {"bgt.s", OP_BR8}, [0x30] = {"bgt.s", OP_BR8}, [0x31] = {"ble.s", OP_BR8},
    [0x32] = {"blt.s", OP_BR8}, [0x33] = {"bne.un.s", OP_BR8}, [0x34] = {"bge.un.s", OP_BR8},
    [0x35] = {"bgt.un.s", OP_BR8}, [0x36] = {"ble.un.s", OP_BR8},
    [0x37] = {"blt.un.s", OP_BR8}, [0x38] = {"br", OP_BR32}, [0x39] = {"brfalse", OP_BR32},
    [0x3A] = {"brtrue", OP_BR32}, [0x3B] = {"beq", OP_BR32}, [0x3C] = {"bgt", OP_BR32},
    [0x3D] = {"bgt", OP_BR32}, [0x3E] = {"ble", OP_BR32}, [0x3F] = {"blt", OP_BR32},
    [0x40] = {"bne.un", OP_BR32}, [0x41] = {"bge.un", OP_BR32}, [0x42] = {"bgt.un", OP_BR32},
    [0x43] = {"ble.un", OP_BR32}, [0x44] = {"blt.un", OP_BR32}, [0x45] = {"switch", OP_SWITCH},
    [0x46] = {"ldind.i1", OP_NONE}, [0x47] = {"ldind.u1", OP_NONE},
    [0x48] = {"ldind.i2", OP_NONE}, [0x49] = {"ldind.u2", OP_NONE},
    [0x4A] = {"ldind.i4", OP_NONE}, [0x4B] = {"ldind.u4", OP_NONE},
    [0x4C] = {"ldind.i8", OP_NONE}, [0x4D] = {"ldind.u8", OP_NONE},
    [0x4E] = {"ldind.r4", OP_NONE}, [0x4F] = {"ldind.r8", OP_NONE},
    [0x50] = {"ldind.ref", OP_NONE}, [0x51] = {"stind.ref", OP_NONE},
    [0x52] = {"stind.i1", OP_NONE}, [0x53] = {"stind.i2", OP_NONE},
    [0x54] = {"stind.i4", OP_NONE}, [0x55] = {"stind.i8", OP_NONE},
    [0x56] = {"stind.r4", OP_NONE}, [0x57] = {"stind.r8", OP_NONE}, [0x58] = {"add", OP_NONE},
    [0x59] = {"sub", OP_NONE}, [0x5A] = {"mul", OP_NONE}, [0x5B] = {"div", OP_NONE},
    [0x5C] = {"div.un", OP_NONE}, [0x5D] = {"rem", OP_NONE}, [0x5E] = {"rem.un", OP_NONE},
    [0x5F] = {"and", OP_NONE}, [0x60] = {"or", OP_NONE}, [0x61] = {"xor", OP_NONE},
    [0x62] = {"shl", OP_NONE}, [0x63] = {"shr", OP_NONE}, [0x64] = {"shr.un", OP_NONE},
    [0x65] = {"neg", OP_NONE}, [0x66] = {"not", OP_NONE}, [0x67] = {"conv.i1", OP_NONE},
    [0x68] = {"conv.i2", OP_NONE}, [0x69] = {"conv.i4", OP_NONE},
    [0x6A] = {"conv.i8", OP_NONE}, [0x6B] = {"conv.r4", OP_NONE},
    [0x6C] = {"conv.r8", OP_NONE}, [0x6D] = {"conv.u4", OP_NONE},
    [0x6E] = {"conv.u8", OP_NONE}, [0x6F] = {"callvirt", OP_TOKEN},
    [0x70] = {"cpobj", OP_TOKEN}, [0x71] = {"ldobj", OP_TOKEN}, [0x72] = {"ldstr", OP_TOKEN},
    [0x73] = {"newobj", OP_TOKEN}, [0x74] = {"castclass", OP_TOKEN},
    [0x75] = {"isinst", OP_TOKEN}, [0x76] = {"conv.r.un", OP_NONE},
    [0x79] = {"unbox", OP_TOKEN}, [0x7A] = {"throw", OP_NONE}, [0x7B] = {"ldfld", OP_TOKEN},
    [0x7C] = {"ldflda", OP_TOKEN}, [0x7D] = {"stfld", OP_TOKEN}, [0x7E] = {"ldsfld", OP_TOKEN},
    [0x7F] = {"ldsflda", OP_TOKEN}, [0x80] = {"stsfld", OP_TOKEN},
    [0x81] = {"stobj", OP_TOKEN}, [0x82] = {"conv.ovf.i1.un", OP_NONE},
    [0x83] = {"conv.ovf.i2.un", OP_NONE}, [0x84] = {"conv.ovf.i4.un", OP_NONE},
    [0x85] = {"conv.ovf.i8.un", OP_NONE}, [0x86] = {"conv.ovf.u1.un", OP_NONE},
    [0x87] = {"conv.ovf.u2.un", OP_NONE}, [0x88] = {"conv.ovf.u4.un", OP_NONE},
    [0x89] = {"conv.ovf.u8.un", OP_NONE}, [0x8A] = {"conv.ovf.i.un", OP_NONE},
    [0x8B] = {"conv.ovf.u.un", OP_NONE}, [0x8C] = {"box", OP_TOKEN},
    [0x8D] = {"newarr", OP_TOKEN}, [0x8E] = {"ldlen", OP_NONE},
    [0x8F] = {"ldelema", OP_TOKEN}, [0x90] = {"ldelem.i1", OP_NONE},
    [0x91] = {"ldelem.u1", OP_NONE}, [0x92] = {"ldelem.i2", OP_NONE},
    [0x93] = {"ldelem.u2", OP_NONE}, [0x94] = {"ldelem.i4", OP_NONE},
    [0x95] = {"ldelem.u4", OP_NONE}, [0x96] = {"ldelem.i8", OP_NONE},
    [0x97] = {"ldelem.i", OP_NONE}, [0x98] = {"ldelem.r4", OP_NONE},
    [0x99] = {"ldelem.r8", OP_NONE}, [0x9A] = {"ldelem.ref", OP_NONE},
    [0x9B] = {"stelem.i", OP_NONE}, [0x9C] = {"stelem.i1", OP_NONE},
    [0x9D] = {"stelem.i2", OP_NONE}, [0x9E] = {"stelem.i4", OP_NONE},
    [0x9F] = {"stelem.i8", OP_NONE}, [0xA0] = {"stelem.r4", OP_NONE},
    [0xA1] = {"stelem.r8", OP_NONE}, [0xA2] = {"stelem.ref", OP_NONE},
    [0xA3] = {"stelem", OP_TOKEN}, [0xA4] = {"stelem", OP_TOKEN},
    [0xA5] = {"unbox.any", OP_TOKEN}, [0xB3] = {"conv.ovf.i1", OP_NONE},
    [0xB4] = {"conv.ovf.u1", OP_NONE}, [0xB5] = {"conv.ovf.i2", OP_NONE},
    [0xB6] = {"conv.ovf.u2", OP_NONE}, [0xB7] = {"conv.ovf.i4", OP_NONE},
    [0xB8] = {"conv.ovf.u4", OP_NONE}, [0xB9] = {"conv.ovf.i8", OP_NONE},
    [0xBA] = {"conv.ovf.u8", OP_NONE}, [0xC2] = {"refanyval", OP_TOKEN},
    [0xC3] = {"ckfinite", OP_NONE}, [0xC6] = {"mkrefany", OP_TOKEN},
    [0xD0] = {"ldtoken", OP_TOKEN}, [0xD1] = {"conv.u2", OP_NONE},
    [0xD2] = {"conv.u1", OP_NONE}, [0xD3] = {"conv.i", OP_NONE},
    [0xD4] = {"conv.ovf.i", OP_NONE}, [0xD5] = {"conv.ovf.u", OP_NONE},
    [0xD6] = {"add.ovf", OP_NONE}, [0xD7] = {"add.ovf.un", OP_NONE},
    [0xD8] = {"mul.ovf", OP_NONE}, [0xD9] = {"mul.ovf.un", OP_NONE},
    [0xDA] = {"sub.ovf", OP_NONE}, [0xDB] = {"sub.ovf.un", OP_NONE},
    [0xDC] = {"endfinally", OP_NONE}, [0xDD] = {"leave", OP_HEX4},
    [0xDE] = {"leave", OP_HEX1}, [0xDF] = {"stind.i", OP_NONE}, [0xE0] = {"conv.u", OP_NONE},
};

/* The opcodes after the 0xFE prefix SuperPMI's mcs knows ("no." takes no operand there). */
static const opcode two_byte[0x1E] = {
    [0x00] = {"arglist", OP_NONE}, [0x01] = {"ceq", OP_NONE}, [0x02] = {"cgt", OP_NONE},
    [0x03] = {"cgt.un", OP_NONE}, [0x04] = {"clt", OP_NONE}, [0x05] = {"clt.un", OP_NONE},
    [0x06] = {"ldftn", OP_TOKEN}, [0x07] = {"ldvirtftn", OP_TOKEN},
    [0x09] = {"ldarg", OP_HEX2}, [0x0A] = {"ldarga", OP_HEX2}, [0x0B] = {"starg", OP_HEX2},
    [0x0C] = {"ldloc", OP_HEX2}, [0x0D] = {"ldloca", OP_HEX2}, [0x0E] = {"stloc", OP_HEX2},
    [0x0F] = {"localloc", OP_NONE}, [0x11] = {"endfilter", OP_NONE},
    [0x12] = {"unaligned.", OP_HEX1}, [0x13] = {"volatile.", OP_NONE},
    [0x14] = {"tail.", OP_NONE}, [0x15] = {"initobj", OP_TOKEN},
    [0x16] = {"constrained.", OP_TOKEN}, [0x17] = {"cpblk", OP_NONE},
    [0x18] = {"initblk", OP_NONE}, [0x19] = {"no.", OP_NONE}, [0x1A] = {"rethrow", OP_NONE},
    [0x1C] = {"sizeof", OP_TOKEN}, [0x1D] = {"refanytype", OP_NONE},
};

/* Bytes an operand takes (switch: its count; the targets are checked separately). */
static unsigned operand_size(operand kind)
{
    static const unsigned sizes[] = {[OP_NONE] = 0, [OP_HEX1] = 1, [OP_HEX2] = 2,
                                     [OP_HEX4] = 4, [OP_HEX8] = 8, [OP_FLOAT32] = 4,
                                     [OP_FLOAT64] = 8, [OP_TOKEN] = 4, [OP_BR8] = 1,
                                     [OP_BR32] = 4, [OP_SWITCH] = 4};
    return sizes[kind];
}

static bool truncated(FILE *f, uint64_t need, uint64_t left)
{
    if (need <= left)
        return false;
    fprintf(f, " <truncated: %" PRIu64 " bytes needed, %" PRIu64 " left>\n", need, left);
    return true;
}

/* "0x" and the n bytes at p, last first, as SuperPMI's "%02x" per byte prints them. */
static void print_bytes_reversed(FILE *f, const uint8_t *p, unsigned n)
{
    fputs("0x", f);
    while (n--)
        fprintf(f, "%02x", p[n]);
}

/* switch: " (0xCOUNT)" and " <0xTARGET>" per target; SuperPMI takes the count as an int, so a
 * negative one has no targets. Returns the operand's size, or 0 when cut off. */
static uint64_t print_switch(FILE *f, const uint8_t *p, uint64_t left)
{
    int32_t count = (int32_t)mcz_get_le32(p);
    uint64_t targets = count > 0 ? (uint64_t)count : 0;
    fputs(" (", f);
    print_bytes_reversed(f, p, 4);
    fputc(')', f);
    if (truncated(f, 4 + 4 * targets, left))
        return 0;
    for (uint64_t t = 0; t < targets; t++) {
        fputs(" <", f);
        print_bytes_reversed(f, p + 4 + 4 * t, 4);
        fputc('>', f);
    }
    return 4 + 4 * targets;
}

/* Prints the operand at p (left bytes remain in the IL; next is the offset after the operand
 * of a fixed-size one, which branch targets count from). Returns its size, or 0 when cut
 * off. */
static uint64_t print_operand(FILE *f, operand kind, const uint8_t *p, uint64_t left,
                              uint64_t next)
{
    uint64_t size = operand_size(kind);
    if (truncated(f, size, left))
        return 0;
    switch (kind) {
    case OP_NONE: break;
    case OP_HEX1:
    case OP_HEX2:
    case OP_HEX4:
    case OP_HEX8: fputc(' ', f); print_bytes_reversed(f, p, (unsigned)size); break;
    case OP_FLOAT32: fputs(" float32(", f); print_bytes_reversed(f, p, 4); fputc(')', f); break;
    case OP_FLOAT64: fputs(" float64(", f); print_bytes_reversed(f, p, 8); fputc(')', f); break;
    case OP_TOKEN: fputs(" <", f); print_bytes_reversed(f, p, 4); fputc('>', f); break;
    case OP_BR8: fprintf(f, " IL_%04" PRIx32, (uint32_t)(next + 1 + p[0])); break;
    case OP_BR32:
        fprintf(f, " IL_%04" PRIx32, (uint32_t)((int64_t)next + 4 + (int32_t)mcz_get_le32(p)));
        break;
    case OP_SWITCH: return print_switch(f, p, left);
    }
    return size;
}

/* An opcode SuperPMI's mcs does not know: reported on stderr, and a line break after it. */
static void unknown_opcode(FILE *f, const mcz_mc *mc, const char *text, uint64_t at)
{
    tool_warn("context %" PRIu32 ": unknown ilCode %s at offset %" PRIu64, mc->number, text, at);
    fputc('\n', f);
}

/* DumpILToConsoleBare, reading nothing past the IL. */
static void print_il(FILE *f, const mcz_mc *mc, const uint8_t *il, uint32_t size)
{
    uint64_t i = 0;
    char text[16];
    while (i < size) {
        fprintf(f, "IL_%04" PRIx64 ": ", i);
        const opcode *op = &one_byte[il[i]];
        uint8_t first = il[i++];
        if (first == 0xFE) {
            if (truncated(f, 1, size - i))
                return;
            uint8_t second = il[i++];
            op = second < sizeof two_byte / sizeof two_byte[0] ? &two_byte[second] : NULL;
            if (!op || !op->name) {
                snprintf(text, sizeof text, "0xfe%02x", second);
                unknown_opcode(f, mc, text, i - 1);
                continue;
            }
        } else if (!op->name) {
            snprintf(text, sizeof text, "0x%02x", first);
            unknown_opcode(f, mc, text, i - 1);
            continue;
        }
        fputs(op->name, f);
        uint64_t used = print_operand(f, op->kind, il + i, size - i, i);
        if (used == 0 && op->kind != OP_NONE)
            return;
        i += used;
    }
}

static void print_method(FILE *f, const mcz_jit_ee *v, const mcz_mc *mc, const mcs_method *m)
{
    uint64_t ftn = mcz_get_le64(m->info + MCZ_MI_FTN);
    const uint8_t *args = m->info + MCZ_MI_ARGS;
    char cls[MCS_NAME_SIZE], name[MCS_NAME_SIZE];
    mcs_method_class_name(mc, ftn, cls);
    mcs_print_name(mc, MCZ_PACKET_PRINT_METHOD_NAME, ftn, name);
    fprintf(f, ".class %s\n{\n   .method ", cls);
    mcs_print_attributes(f, mc, ftn);
    mcs_print_prim(f, v, mc, mcz_get_le32(args + MCZ_SIG_RET_TYPE),
                   mcz_get_le64(args + MCZ_SIG_RET_TYPE_CLASS));
    fprintf(f, " %s(", name);
    mcs_print_sig_args(f, v, mc, args);
    fprintf(f, ")\n   {\n      .maxstack  %" PRIu32 "\n", mcz_get_le32(m->info + MCZ_MI_MAX_STACK));
    bool init = mcz_get_le32(m->info + MCZ_MI_OPTIONS) & OPTION_INIT_LOCALS;
    fprintf(f, "      .locals %s(", init ? "init " : "");
    mcs_print_sig_args(f, v, mc, m->info + MCZ_MI_LOCALS);
    fputs(")\n", f);
    const uint8_t *il;
    uint32_t size;
    if (mcs_method_il(m, &il, &size))
        print_il(f, mc, il, size);
    else
        fprintf(f, "<IL unavailable: %" PRIu32 " bytes not in the pool>\n", size);
    fputs("   }\n}\n", f);
}

static int ildump_context(void *unused, mcs_input *in, const mcz_mc *mc)
{
    (void)unused;
    FILE *f = stdout;
    char process[4096];
    fprintf(f, "// ProcessName - '%s'\n",
            mcs_process_name(mc, process, sizeof process) ? process : "hackishProcessName");
    fputs(".assembly extern mscorlib{}\n.assembly dumped_asm\n", f);
    mcs_method m;
    if (mcs_method_load(mc, &m, NULL) == 1)
        print_method(f, mcs_input_jit_ee(in), mc, &m);
    else
        fprintf(f, ".class %s\n{\n   // no CompileMethod record\n}\n", MCS_UNKNOWN);
    return 0;
}

int cmd_ildump(mcs_run *run, int argc, char **argv)
{
    uint64_t dumped = 0;
    const char *pos[1];
    mcz_list list;
    int rc = mcs_parse_ranged(run, argc, argv, &usage_ildump, NULL, 1, pos, &list);
    if (rc != MCS_EXIT_OK)
        return rc;
    rc = mcs_for_each_sound_context(run, pos[0], &list, NULL, ildump_context, NULL, &dumped);
    mcz_list_free(&list);
    if (rc != 0)
        return MCS_EXIT_FAIL;
    tool_info("// Dumped %" PRIu64, dumped);
    return MCS_EXIT_OK;
}
