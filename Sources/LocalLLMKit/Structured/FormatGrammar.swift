/// GBNF for the string formats LocalLLMKit enforces, each a subset of what the format allows.
///
/// llama.cpp's converter knows `date`, `time`, `date-time` and `uuid`, but its `date`
/// allows February 31st, and it silently accepts any string for other formats. These
/// rules are exact where it is cheap (calendar dates with leap years, octets of 0–255)
/// and conservative elsewhere (host names of up to four labels of 50 characters, URIs
/// with an authority and bounded parts).
enum FormatGrammar {
    /// The GBNF expression for a JSON string in `format`, adding the rules it uses (named
    /// `prefix-…`) to `rules`; nil for a format LocalLLMKit does not enforce.
    static func expression(for format: String, prefix: String, rules: inout [String: String]) -> String? {
        let body: String
        switch format {
        case "date", "time", "date-time", "ipv4", "hostname", "email", "uri":
            body = "\(prefix)-\(format)"
        case "uuid":
            body = "\(prefix)-uuid"
        case "uuid1", "uuid2", "uuid3", "uuid4", "uuid5":
            // The version digit, and the RFC 4122 variant (8, 9, a or b).
            let hex = "[0-9a-fA-F]"
            body = "\(hex){8} \"-\" \(hex){4} \"-\" \"\(format.last!)\" \(hex){3} \"-\" [89abAB] \(hex){3} \"-\" \(hex){12}"
        default:
            return nil
        }
        for (name, rule) in definitions where body.contains("\(prefix)-") {
            rules["\(prefix)-\(name)"] = rule.replacingOccurrences(of: "P-", with: "\(prefix)-")
        }
        return #""\"" "# + body + #" "\"""#
    }

    /// The rules, with `P-` standing for the prefix. All of them are added: llama.cpp's
    /// parser accepts unused rules.
    private static let definitions: [(String, String)] = [
        // Years 0001–9999: Python, like ISO 8601 with four digits, has no year 0.
        ("year", #"[1-9] [0-9]{3} | "0" ( [1-9] [0-9]{2} | "0" ( [1-9] [0-9] | "0" [1-9] ) )"#),
        // Two digits forming a non-zero multiple of 4.
        ("four", #"[02468] [48] | [2468] "0" | [13579] [26]"#),
        ("leap-year", #"[0-9] [0-9] P-four | P-four "00""#),
        ("date", #"P-year "-" ( ( "0" [13578] | "1" [02] ) "-" ( "0" [1-9] | [12] [0-9] | "3" [01] )"#
            + #" | ( "0" [469] | "11" ) "-" ( "0" [1-9] | [12] [0-9] | "30" )"#
            + #" | "02-" ( "0" [1-9] | "1" [0-9] | "2" [0-8] ) ) | P-leap-year "-02-29""#),
        ("hour", #"[01] [0-9] | "2" [0-3]"#),
        ("time", #"P-hour ":" [0-5] [0-9] ":" [0-5] [0-9] ( "." [0-9]{1,6} )? ( "Z" | [+-] P-hour ":" [0-5] [0-9] )"#),
        ("date-time", #"P-date "T" P-time"#),
        ("uuid", #"[0-9a-fA-F]{8} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{12}"#),
        ("octet", #""25" [0-5] | "2" [0-4] [0-9] | "1" [0-9] [0-9] | [1-9] [0-9] | [0-9]"#),
        ("ipv4", #"P-octet "." P-octet "." P-octet "." P-octet"#),
        // RFC 1123 labels: letters, digits and inner hyphens.
        ("label", #"[a-zA-Z0-9] ( [a-zA-Z0-9-]{0,48} [a-zA-Z0-9] )?"#),
        // At most 4 × 50 + 3 = 203 characters, within the 253 allowed; the last label is not all digits.
        ("hostname", #"( P-label "." ){0,3} P-top-label"#),
        ("top-label", #"[a-zA-Z] ( [a-zA-Z0-9-]{0,48} [a-zA-Z0-9] )?"#),
        // A dot-atom local part (at most 63 characters) and a domain with a top-level domain of letters.
        ("atom", #"[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]{1,15}"#),
        ("email", #"P-atom ( "." P-atom ){0,3} "@" ( P-label "." ){1,3} [a-zA-Z]{2,16}"#),
        // RFC 3986 with an authority: scheme://host[:port][/path][?query][#fragment], each part
        // bounded so that an answer ends (up to 4 path segments of 24 characters, a query of 40,
        // a fragment of 20).
        ("pchar", #"[a-zA-Z0-9._~!$&'()*+,;=:@-] | "%" [0-9a-fA-F] [0-9a-fA-F]"#),
        ("uri", #"[a-zA-Z] [a-zA-Z0-9+.-]{0,15} "://" ( P-hostname | P-ipv4 ) ( ":" [0-9]{1,5} )? ( "/" P-pchar{0,24} ){0,4}"#
            + ##" ( "?" ( P-pchar | [/?] ){0,40} )? ( "#" ( P-pchar | [/?] ){0,20} )?"##),
    ]
}
