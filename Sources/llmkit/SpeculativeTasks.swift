/// The fixed task set of `llmkit bench --speculative`: editing, extraction and quoting (answers
/// that repeat their input, where prompt lookup drafts) and code generation (new text, where a
/// draft model drafts).
struct SpeculativeTask: Encodable {
    /// A short identifier.
    let name: String
    /// `editing`, `extraction`, `quoting` or `generation`.
    let kind: String
    /// The user message, sent through the model's chat template.
    let message: String

    static let mergeFunction = """
    def merge_sorted(left, right):
        result = []
        i = 0
        j = 0
        while i < len(left) and j < len(right):
            if left[i] <= right[j]:
                result.append(left[i])
                i += 1
            else:
                result.append(right[j])
                j += 1
        result.extend(left[i:])
        result.extend(right[j:])
        return result
    """

    static let all = [
        SpeculativeTask(name: "rename-variable", kind: "editing", message: """
            Rename the variable `result` to `merged` in this Python function. Reply with the whole function only, in a code block.

            \(mergeFunction)
            """),
        SpeculativeTask(name: "add-type-hints", kind: "editing", message: """
            Add type hints (lists of integers) to the parameters and the return value of this Python function, and change nothing else. Reply with the whole function only, in a code block.

            \(mergeFunction)
            """),
        SpeculativeTask(name: "fix-bug", kind: "editing", message: """
            This function should return the average of the numbers, but it divides by the wrong value. Fix that one line and keep everything else as it is. Reply with the whole corrected function only, in a code block.

            def average(numbers):
                if not numbers:
                    raise ValueError("average of an empty list")
                total = 0
                for number in numbers:
                    total += number
                count = len(numbers)
                return total / (count - 1)
            """),
        SpeculativeTask(name: "extract-fields", kind: "extraction", message: """
            From this invoice, extract the invoice number, the date, the customer's name, the customer's address and the total, as a JSON object with the keys number, date, customer, address and total. Reply with the JSON only.

            INVOICE No. INV-2026-00417
            Date: 14 March 2026
            Bill to: Margaret Hollingsworth, 27 Kingfisher Lane, Little Chalfont, Buckinghamshire HP7 9QX, United Kingdom
            Items: 3 × ceramic planter (large) at 24.50 GBP; 2 × bag of peat-free compost (50 l) at 11.25 GBP; delivery 6.00 GBP
            Total due: 102.00 GBP, payable within 30 days to account 40-11-62 71834459.
            """),
        SpeculativeTask(name: "extract-people", kind: "extraction", message: """
            List every person named in this text with their role, as a Markdown table with the columns Name and Role. Use the names and roles exactly as written.

            The meeting was opened by Dr. Amelia Okonkwo-Reyes, head of clinical research, who introduced Jonathan Whitfield-Barnes, the new data protection officer. Priya Venkataraman, senior statistician, presented the interim analysis, and Lukas Oberhollenzer, lead software engineer, explained the changes to the trial database. The minutes were taken by Sophie Delacroix-Martin, project coordinator.
            """),
        SpeculativeTask(name: "quote-passage", kind: "quoting", message: """
            Quote the second paragraph of this text exactly, word for word, without any comment.

            The lighthouse stood at the end of a long breakwater, its white tower streaked with rust where the iron rails met the stone.

            Every evening at dusk the keeper climbed the one hundred and twelve steps, wound the clockwork that turned the great lens, and lit the lamp that would sweep the dark water until morning.

            In winter the storms came from the west, and the spray rose so high that it rattled against the lantern glass.
            """),
        SpeculativeTask(name: "write-palindrome", kind: "generation", message: """
            Write a Python function is_palindrome(text) that checks whether a string is a palindrome, ignoring case, spaces and punctuation, with a docstring and two doctest examples.
            """),
        SpeculativeTask(name: "write-stack", kind: "generation", message: """
            Write a Python class Stack with the methods push, pop, peek, is_empty and __len__, each with a one-line docstring, raising IndexError when popping or peeking an empty stack.
            """),
    ]
}
