// Every test file counts towards coverage of the whole src/ tree.
export default () => ['src/**']
