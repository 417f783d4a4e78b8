import Foundation

extension ModelLibrary {
    /// A model managed by a ``ModelLibrary``: its file and what is known about it. Stored as
    /// `metadata.json` next to the file.
    public struct Record: Codable, Sendable, Equatable, Identifiable {
        /// A stable id: the name as a slug, plus the start of the SHA-256.
        public var id: String
        /// A display name.
        public var name: String
        /// Whether a user gave ``name`` (`import --name`, `pull --name`, ``ModelLibrary/rename(_:to:)``)
        /// rather than it coming from the file or the catalog. A name a user gave finds its model
        /// before catalog ids do, and no other model may take it; see ``ModelLibrary/entry(named:)``.
        public var isNameGiven: Bool
        /// The GGUF file's name inside the model's folder (for a split model, its first part,
        /// `NAME-00001-of-0000N.gguf`, with the other parts beside it).
        public var fileName: String
        /// The file's size in bytes (all parts together, for a split model).
        public var bytes: Int64
        /// The file's SHA-256, 64 lowercase hexadecimal digits (its first part's, for a split model).
        public var sha256: String
        /// Where it was downloaded from (empty for an import).
        public var sourceURLs: [String]
        /// `general.architecture`.
        public var architecture: String?
        /// The number of weights.
        public var parameterCount: Int64
        /// The quantization scheme, e.g. `Q4_K_M`.
        public var quantization: String?
        /// The training context length.
        public var trainingContextLength: Int?
        /// Whether the file embeds a chat template.
        public var hasChatTemplate: Bool
        /// When it was added.
        public var addedAt: Date
        /// The LoRA adapters that load with it, each a file in its folder (``ModelLibrary/copy(_:to:adapters:)``);
        /// nil when none.
        public var adapters: [Adapter]?

        /// A LoRA adapter that a library model carries: applied whenever the model is loaded by
        /// its library name.
        public struct Adapter: Codable, Sendable, Equatable {
            /// The adapter's file in the model's folder.
            public var fileName: String
            /// Its scale (see ``LocalModel/Configuration/Adapter/scale``).
            public var scale: Float
            /// The file's SHA-256.
            public var sha256: String

            enum CodingKeys: String, CodingKey {
                case scale, sha256
                case fileName = "file_name"
            }
        }

        /// The most adapters a record may list (a `metadata.json` with more is not the library's).
        static let maximumAdapters = 64

        /// A string that finds this model again after a restart: persist
        /// `selection.storageValue` and pass it to ``ModelLibrary/resolve(_:)``.
        public var selection: ModelLibrary.Selection { ModelLibrary.Selection("library:" + id) }

        /// Describes a GGUF file whose SHA-256 is known. `name` is a name a user gave; without
        /// one, the first of ``fallbackNames(file:suggested:fileName:)`` is used for now (the
        /// library checks it, and picks another if needed, when it registers the model).
        init(file: GGUFFile, sha256: String, name: String?, suggestedName: String? = nil, fileName: String, sourceURLs: [String]) {
            let displayName = name ?? Self.fallbackNames(file: file, suggested: suggestedName, fileName: fileName)[0]
            self.id = Self.id(for: displayName, sha256: sha256)
            self.name = displayName
            self.isNameGiven = name != nil
            self.fileName = fileName
            self.bytes = file.fileSize
            self.sha256 = sha256
            self.sourceURLs = sourceURLs
            self.architecture = file.architecture
            self.parameterCount = file.parameterCount
            self.quantization = file.quantization
            self.trainingContextLength = file.trainingContextLength
            self.hasChatTemplate = file.hasChatTemplate
            self.addedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))   // as metadata.json keeps it
        }

        /// The names a model gets when no user named it, best first: `suggested` (a catalog
        /// model's display name), the file's own `general.name` (cleaned: it is whatever the file
        /// says), the file name without `.gguf`, and `model`.
        static func fallbackNames(file: GGUFFile, suggested: String?, fileName: String) -> [String] {
            let stem = String(fileName.dropLast(fileName.hasSuffix(".gguf") ? 5 : 0))
            return [suggested.flatMap(cleanedName), file.name.flatMap(cleanedName), cleanedName(stem), "model"].compactMap { $0 }
        }

        /// The id of a new model named `name`: the name as a slug, a dash, and the first 8 digits of the SHA-256.
        static func id(for name: String, sha256: String) -> String {
            slug(name) + "-" + sha256.prefix(8)
        }

        /// Lowercase letters, digits, `.`, `_` and `-`; everything else becomes `-`; no leading
        /// `.`, `_` or `-`.
        static func slug(_ text: String) -> String {
            let mapped = text.lowercased().map { $0.isLetter && $0.isASCII || $0.isNumber && $0.isASCII || "._-".contains($0) ? $0 : "-" }
            let collapsed = String(mapped).split(separator: "-", omittingEmptySubsequences: true).joined(separator: "-")
                .drop { "._-".contains($0) }                     // never a hidden folder name
            return collapsed.isEmpty ? "model" : String(collapsed.prefix(60))
        }

        /// Whether this record can describe the library folder `folderName`: its id is that
        /// folder's name, made only of `a-z 0-9 . _ -`, starting with neither `.` nor `-`, and ending with the start
        /// of a well-formed SHA-256; its file name is a plain file name. A `metadata.json`
        /// that fails is ignored, so a forged one can never steer a path out of its folder.
        func isValid(inFolderNamed folderName: String) -> Bool {
            guard sha256.utf8.count == 64, sha256.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
                  id == folderName, id.utf8.count <= 128, let first = id.utf8.first,
                  (48...57).contains(first) || (97...122).contains(first) || first == UInt8(ascii: "_"),
                  id.utf8.allSatisfy({ (48...57).contains($0) || (97...122).contains($0) || "._-".utf8.contains($0) }),
                  id.hasSuffix("-" + sha256.prefix(8)), bytes >= 0 else { return false }
            guard (try? ModelLibrary.safeFileName(fileName)) != nil, fileName != "metadata.json" else { return false }
            guard (adapters ?? []).count <= Self.maximumAdapters else { return false }
            return (adapters ?? []).allSatisfy { adapter in
                (try? ModelLibrary.safeFileName(adapter.fileName)) != nil && adapter.fileName.hasSuffix(".gguf")
                    && adapter.fileName != fileName && adapter.scale.isFinite
            }
        }

        /// A display name as given by a user: surrounding spaces trimmed; empty, over 200
        /// characters, holding control characters (newlines, terminal escapes), or a name that
        /// would read as something else (``ModelLibrary/reservedNameProblem(_:)``) is refused.
        /// - Throws: ``ModelLibrary/Error/invalidName(reason:)`` naming the problem.
        static func validatedName(_ name: String) throws -> String {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { throw ModelLibrary.Error.invalidName(reason: "a model name cannot be empty") }
            guard trimmed.count <= 200 else {
                throw ModelLibrary.Error.invalidName(reason: "a model name has at most 200 characters (got \(trimmed.count))")
            }
            if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw ModelLibrary.Error.invalidName(reason: "a model name cannot contain control characters (newlines, tabs, escapes)")
            }
            if let reason = ModelLibrary.reservedNameProblem(trimmed) { throw ModelLibrary.Error.invalidName(reason: reason) }
            return trimmed
        }

        /// A display name taken from a file (`general.name`, a file name): control characters
        /// removed, spaces trimmed, at most 200 characters; nil when nothing is left.
        static func cleanedName(_ text: String) -> String? {
            let kept = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .control }))
            let trimmed = String(kept.trimmingCharacters(in: .whitespaces).prefix(200))
            return trimmed.isEmpty ? nil : trimmed
        }

        enum CodingKeys: String, CodingKey {
            case id, name, bytes, sha256, architecture, quantization
            case isNameGiven = "name_given"
            case fileName = "file_name"
            case sourceURLs = "source_urls"
            case parameterCount = "parameter_count"
            case trainingContextLength = "training_context_length"
            case hasChatTemplate = "has_chat_template"
            case addedAt = "added_at"
            case adapters
        }

        /// Reads a record; one written before `name_given` existed reads as named by its file.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            name = try container.decode(String.self, forKey: .name)
            isNameGiven = try container.decodeIfPresent(Bool.self, forKey: .isNameGiven) ?? false
            fileName = try container.decode(String.self, forKey: .fileName)
            bytes = try container.decode(Int64.self, forKey: .bytes)
            sha256 = try container.decode(String.self, forKey: .sha256)
            sourceURLs = try container.decode([String].self, forKey: .sourceURLs)
            architecture = try container.decodeIfPresent(String.self, forKey: .architecture)
            parameterCount = try container.decode(Int64.self, forKey: .parameterCount)
            quantization = try container.decodeIfPresent(String.self, forKey: .quantization)
            trainingContextLength = try container.decodeIfPresent(Int.self, forKey: .trainingContextLength)
            hasChatTemplate = try container.decode(Bool.self, forKey: .hasChatTemplate)
            addedAt = try container.decode(Date.self, forKey: .addedAt)
            adapters = try container.decodeIfPresent([Adapter].self, forKey: .adapters)
        }

        static var encoder: JSONEncoder {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            return encoder
        }

        static var decoder: JSONDecoder {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return decoder
        }
    }
}
